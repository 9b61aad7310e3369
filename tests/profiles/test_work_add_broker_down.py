"""An owner adds a missing work while the broker is down: the page answers, the work follows.

The import waits to be sent; beat's ``watch_imports`` sends it once Redis answers,
and the work is linked when the run ends, however the run reached a worker.
"""

from __future__ import annotations

import pytest
import responses
from django.urls import reverse
from responses import matchers

from catalogue.models import AuditEvent, ImportRun, Work
from config.celery import app as celery_app
from ingestion import tasks
from profiles.claims import ownership
from tests.config.test_faults_redis import redis_site  # noqa: F401 - a fixture
from tests.own_redis import own_redis  # noqa: F401 - a fixture
from tests.profiles.test_ownership import (
    API,
    linked,
    list_page,
    owner,  # noqa: F401 - a fixture
    profile_of,
    record,  # noqa: F401 - a fixture
    work_payload,
)

pytestmark = pytest.mark.django_db(transaction=True)

DOI = "10.5555/while-down"


def _openalex_answers(mock, *works) -> None:
    mock.get(
        f"{API}/works",
        json=list_page(*works),
        match=[
            matchers.query_param_matcher(
                {"filter": f"doi:https://doi.org/{DOI}"}, strict_match=False
            )
        ],
    )


def _as_a_worker(run_id: int) -> None:
    """What a worker does with the message: the task, and what it sends, run here."""
    celery_app.conf.task_always_eager = True  # the fixture puts it back
    tasks.import_run.delay(run_id)


def test_a_work_added_while_the_broker_is_down_waits_then_is_linked(
    client,
    redis_site,  # noqa: F811
    record,  # noqa: F811
    owner,  # noqa: F811
):
    client.force_login(owner)
    redis_site.stop()

    response = client.post(
        reverse("profiles:work_add", args=[record.pk]), {"identifier": f"doi:{DOI}"}, follow=True
    )

    assert response.status_code == 200
    assert "will be fetched shortly" in response.content.decode()
    run = ImportRun.objects.get(kind="dois")
    assert run.status == ImportRun.Status.WAITING and run.task_id == ""
    assert AuditEvent.objects.filter(action=ownership.ADD, data__run_id=run.pk).exists()
    (status,) = ownership.work_additions(author=record)
    assert status.state == "importing"

    assert tasks.watch_imports()["sent"] == 0  # still down: it keeps waiting
    redis_site.start()
    assert tasks.watch_imports()["sent"] == 1
    run.refresh_from_db()
    assert run.status == ImportRun.Status.QUEUED and run.task_id

    payload = work_payload(
        "W7",
        DOI,
        "A paper added while Redis was down",
        [
            ("A5000000007", "Someone Else"),
        ],
    )
    with responses.RequestsMock() as mock:
        _openalex_answers(mock, payload)
        _as_a_worker(run.pk)

    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED
    work = Work.objects.get(doi=DOI)
    assert linked(record, work)
    (status,) = ownership.work_additions(author=record)
    assert status.state == "linked" and status.work == work


def test_a_run_that_ends_again_links_once(
    client,
    redis_site,  # noqa: F811
    record,  # noqa: F811
    owner,  # noqa: F811
    monkeypatch,
):
    """Not found when the run first failed; linked (once) after a retry that found it."""
    from ingestion.sources.openalex import fetching as openalex_source

    monkeypatch.setattr(openalex_source, "RETRY_BACKOFF", 0)
    redis_site.stop()
    added = ownership.work_add(profile=profile_of(owner), identifier=DOI, actor=owner)
    assert added.waits_to_be_sent()

    with responses.RequestsMock() as mock:
        _openalex_answers(mock)  # nothing found yet
        _as_a_worker(added.run.pk)
    (status,) = ownership.work_additions(author=record)
    assert status.state == "not_found"

    run = ImportRun.objects.get(pk=added.run.pk)
    run.status = ImportRun.Status.FAILED
    run.save(update_fields=["status"])
    payload = work_payload("W8", DOI, "Found the second time", [("A5000000007", "Someone")])
    with responses.RequestsMock() as mock:
        _openalex_answers(mock, payload)
        tasks.import_run.delay(run.pk)  # a retry, in a worker
        tasks.import_run.delay(run.pk)  # and the same message redelivered: nothing more

    work = Work.objects.get(doi=DOI)
    assert linked(record, work)
    (status,) = ownership.work_additions(author=record)
    assert status.state == "linked"
    linked_events = AuditEvent.objects.filter(action=ownership.LINKED, data__run_id=run.pk)
    assert linked_events.count() == 1
    not_found = AuditEvent.objects.filter(action=ownership.NOT_FOUND, data__run_id=run.pk)
    assert not_found.count() == 1

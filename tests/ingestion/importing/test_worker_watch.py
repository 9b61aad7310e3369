"""beat's watch_imports: a run whose worker stopped writing is resumed; a live one is left alone."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from catalogue.models import ImportRun, Work
from ingestion import tasks

DEMO_WORKS = Path(__file__).resolve().parents[3] / "devtools" / "demo" / "openalex" / "works.json"

pytestmark = pytest.mark.django_db


def _running(heartbeat_age: timedelta | None, started_age=timedelta(hours=1)) -> ImportRun:
    now = timezone.now()
    return ImportRun.objects.create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(DEMO_WORKS)]},
        status=ImportRun.Status.RUNNING,
        started_at=now - started_age,
        heartbeat_at=None if heartbeat_age is None else now - heartbeat_age,
    )


def test_a_run_without_a_recent_heartbeat_is_resumed_to_the_end(settings):
    settings.IMPORT_STALLED_AFTER = 300
    stalled = _running(timedelta(seconds=301))
    assert tasks.watch_imports() == {"sent": 0, "resumed": [stalled.pk]}
    stalled.refresh_from_db()
    assert stalled.status == ImportRun.Status.SUCCEEDED  # inline here; a worker elsewhere
    assert Work.objects.count() == stalled.counters["created"] > 0


def test_a_run_with_a_recent_heartbeat_is_left_to_its_worker(settings):
    settings.IMPORT_STALLED_AFTER = 300
    alive = _running(timedelta(seconds=299))
    assert tasks.watch_imports()["resumed"] == []
    alive.refresh_from_db()
    assert alive.status == ImportRun.Status.RUNNING


def test_a_run_started_before_heartbeats_is_judged_by_its_start(settings):
    settings.IMPORT_STALLED_AFTER = 300
    old = _running(None, started_age=timedelta(minutes=10))
    young = _running(None, started_age=timedelta(minutes=1))
    assert tasks.watch_imports()["resumed"] == [old.pk]
    young.refresh_from_db()
    assert young.status == ImportRun.Status.RUNNING


def test_finished_and_cancelled_runs_are_never_resumed(settings):
    settings.IMPORT_STALLED_AFTER = 300
    for status in (ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED, ImportRun.Status.CANCELLED):
        ImportRun.objects.create(
            source="openalex",
            kind="author",
            status=status,
            heartbeat_at=timezone.now() - timedelta(days=1),
        )
    assert tasks.watch_imports() == {"sent": 0, "resumed": []}


def test_each_batch_writes_the_heartbeat():
    from ingestion.importing.dispatch import import_run_create
    from ingestion.importing.execution import import_run_execute

    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(DEMO_WORKS)]}, queue=False
    )
    before = timezone.now()
    import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.heartbeat_at >= before


def test_a_waiting_run_can_be_cancelled():
    from ingestion.importing.runs import import_run_cancel

    run = ImportRun.objects.create(source="openalex", kind="author", status="waiting")
    import_run_cancel(run=run)
    run.refresh_from_db()
    assert run.status == ImportRun.Status.CANCELLED

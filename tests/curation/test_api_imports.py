"""Staff queue imports through the API and read their progress."""

import pytest

from catalogue.models import AuditEvent, ImportRun
from tests.factories import UserFactory, grant

pytestmark = pytest.mark.django_db
URL = "/api/v1/imports/"


@pytest.fixture
def staff_client(client):
    staff = UserFactory(username="staff", is_staff=True)
    client.force_login(grant(staff, "publications.view_importrun", "publications.add_importrun"))
    return client


def test_staff_queue_an_import_and_it_runs_after_commit(
    staff_client, django_capture_on_commit_callbacks
):
    body = {"source": "openalex", "kind": "author", "parameters": {"id": "A5023888391"}}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(URL, body, content_type="application/json")
    assert response.status_code == 201, response.json()
    run = ImportRun.objects.get(pk=response.json()["id"])
    assert run.status == ImportRun.Status.QUEUED
    assert run.requested_by.username == "staff"
    assert len(callbacks) == 1  # the task is queued only once the run is committed


def test_an_import_queued_through_the_api_is_audited_as_the_admin_s_are(staff_client):
    body = {"source": "arxiv", "kind": "ids", "parameters": {"ids": ["2006.00001"]}}
    response = staff_client.post(URL, body, content_type="application/json")
    run = ImportRun.objects.get(pk=response.json()["id"])
    event = AuditEvent.objects.get(action="import_run_create", target_id=str(run.pk))
    assert event.actor.username == "staff"
    assert event.data == {
        "run": run.pk,
        "source": "arxiv",
        "kind": "ids",
        "parameters": {"ids": ["2006.00001"]},
        "via": "api",
    }


def test_progress_is_readable(staff_client):
    run = ImportRun.objects.create(source="openalex", kind="author", processed=50, total=200)
    body = staff_client.get(f"{URL}{run.pk}/").json()
    assert body["progress"] == 0.25
    assert body["status"] == "queued"


def test_an_invalid_request_answers_the_error_shape(staff_client):
    body = {"source": "arxiv", "kind": "dois", "parameters": {"dois": ["10.1/x"]}}
    response = staff_client.post(URL, body, content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "arxiv imports take one of" in str(error["details"])
    missing = staff_client.post(
        URL,
        {"source": "openalex", "kind": "orcid", "parameters": {"x": 1}},
        content_type="application/json",
    )
    assert "'orcid' is required" in str(missing.json()["error"]["details"])


@pytest.mark.parametrize(
    ("who", "status"), [("anonymous", 401), ("member", 403), ("staff without permissions", 403)]
)
def test_only_staff_with_the_import_permissions_see_or_queue_imports(client, who, status):
    if who != "anonymous":
        client.force_login(UserFactory(username="someone", is_staff=who.startswith("staff")))
    listing = client.get(URL)
    created = client.post(
        URL, {"source": "openalex", "kind": "author"}, content_type="application/json"
    )
    for response in (listing, created):
        assert response.status_code == status
        assert response.json()["error"]["code"] in {"not_authenticated", "permission_denied"}
    assert not ImportRun.objects.exists()

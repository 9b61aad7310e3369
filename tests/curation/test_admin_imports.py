"""Imports from the admin: uploaded recorded files, runs that do not hold the page, progress."""

import gzip
import json
import threading

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalogue.models import AuditEvent, ImportRun, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from tests.curation.curation_records import openalex_work
from tests.factories import UserFactory

NEW = "admin:publications_importrun_new_import"
ATOM = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
      xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query</title>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/abs/2101.00001v1</id>
    <updated>2021-01-01T00:00:00Z</updated>
    <published>2021-01-01T00:00:00Z</published>
    <title>Checkerboard order in a toy model</title>
    <summary>We study a toy model.</summary>
    <author><name>Ada Lovelace</name></author>
    <arxiv:primary_category term="cond-mat.str-el" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cond-mat.str-el" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>
"""


def works(*numbers: int) -> list[dict]:
    return [
        openalex_work(n, f"Widgets, part {n}", [(f"A50000000{n}", f"Author {n}")]) for n in numbers
    ]


def list_page(results: list[dict], count: int) -> bytes:
    return json.dumps({"meta": {"count": count, "per_page": 25}, "results": results}).encode()


def json_lines(results: list[dict]) -> bytes:
    return b"\n".join(json.dumps(r).encode() for r in results) + b"\n"


@pytest.fixture
def uploads_dir(settings, tmp_path):
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"
    return settings.IMPORT_UPLOAD_DIR


@pytest.fixture
def staff_client(client):
    client.force_login(UserFactory(username="curator", is_staff=True, is_superuser=True))
    return client


def upload(client, name: str, content: bytes):
    data = {
        "source": "openalex",
        "kind": "dois",
        "value": "",
        "upload": SimpleUploadedFile(name, content),
    }
    return client.post(reverse(NEW), data)


def finish_background_runs() -> None:
    for thread in threading.enumerate():
        if thread.name.startswith("import-run-"):
            thread.join(timeout=60)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "content", "source", "suffix"),
    [
        ("works.json", list_page(works(1, 2), 2), "openalex", ".json"),
        ("W1.json", json.dumps(works(1)[0]).encode(), "openalex", ".json"),
        ("part_000.gz", gzip.compress(json_lines(works(1, 2, 3))), "openalex", ".json.gz"),
        ("part_000.jsonl", json_lines(works(1, 2)), "openalex", ".json"),
        ("feed.xml", ATOM, "arxiv", ".atom"),
        ("feed.atom.gz", gzip.compress(ATOM), "arxiv", ".atom.gz"),
    ],
)
def test_an_uploaded_recorded_file_is_kept_under_a_generated_name_and_imported(
    staff_client, uploads_dir, django_capture_on_commit_callbacks, name, content, source, suffix
):
    with django_capture_on_commit_callbacks(execute=False):
        response = upload(staff_client, name, content)
    run = ImportRun.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"/{run.pk}/change/")
    assert (run.source, run.kind, run.parameters["uploaded"]) == (source, "file", name)
    [path] = run.parameters["paths"]
    stored = list(uploads_dir.iterdir())
    assert [str(p) for p in stored] == [path]
    assert stored[0].name.startswith("upload-") and stored[0].name.endswith(suffix)
    assert name not in stored[0].name
    assert stored[0].read_bytes() == content
    assert AuditEvent.objects.get(action__endswith="create").data["kind"] == "file"

    run = import_run_execute(run_id=run.pk)
    assert run.status == "succeeded", run.error
    assert run.processed == run.total == Work.objects.count() > 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("empty.json", b"   \n", "This file is empty."),
        (
            "notes.txt",
            b"title,year\nWidgets,2020\n",
            "not OpenAlex JSON, JSON Lines or an arXiv Atom",
        ),
        (
            "picture.png",
            b"\x89PNG\r\n\x1a\n\x00\x00",
            "not OpenAlex JSON, JSON Lines or an arXiv Atom",
        ),
        ("page.html", b"<!DOCTYPE html><html><body>hi</body></html>", "not an Atom feed"),
        ("broken.gz", b"\x1f\x8b\x08\x00garbage-not-deflate", "cannot be unpacked"),
    ],
)
def test_a_file_that_cannot_be_imported_is_refused_with_a_reason_and_not_kept(
    staff_client, uploads_dir, name, content, error
):
    response = upload(staff_client, name, content)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not ImportRun.objects.exists()
    assert not uploads_dir.exists() or not any(uploads_dir.iterdir())


@pytest.mark.django_db
def test_a_file_over_the_limit_is_refused(staff_client, uploads_dir, settings):
    settings.IMPORT_UPLOAD_MAX_BYTES = 1000
    response = upload(staff_client, "big.json", list_page(works(*range(1, 20)), 19))
    text = response.content.decode()
    assert "uploads take at most 0.0 MB" in text or "uploads take at most" in text
    assert "manage.py import_file" in text
    assert not ImportRun.objects.exists()


@pytest.mark.django_db
def test_a_hostile_file_name_never_reaches_the_disk(
    staff_client, uploads_dir, django_capture_on_commit_callbacks
):
    name = "../../etc/pass\x07wd.json"
    with django_capture_on_commit_callbacks(execute=False):
        upload(staff_client, name, list_page(works(1), 1))
    run = ImportRun.objects.get()
    [stored] = uploads_dir.iterdir()
    assert stored.parent == uploads_dir and stored.name.startswith("upload-")
    assert "/" not in run.parameters["uploaded"] and "\x07" not in run.parameters["uploaded"]


@pytest.mark.django_db
def test_neither_a_value_nor_a_file_says_what_is_missing(staff_client, uploads_dir):
    response = staff_client.post(reverse(NEW), {"source": "openalex", "kind": "dois", "value": ""})
    assert "Enter what to import, or choose a recorded file." in response.content.decode()
    assert not ImportRun.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_form_returns_at_once_and_the_run_goes_on_in_the_background(
    client, uploads_dir
):
    client.force_login(UserFactory(username="curator2", is_staff=True, is_superuser=True))
    started = threading.Event()
    release = threading.Event()
    from ingestion.importing import execution

    real = execution.import_run_execute

    def slow(**kwargs):  # holds the run until the page has answered
        started.set()
        assert release.wait(30)
        return real(**kwargs)

    execution.import_run_execute = slow
    try:
        response = upload(client, "works.json", list_page(works(1, 2), 2))
        assert started.wait(10), "the run did not start"
        run = ImportRun.objects.get()
        assert response.status_code == 302  # answered while the run waits
        page = client.get(response.url).content.decode()
        assert f"Import #{run.pk} is asked for. Its status and progress are shown below." in page
        assert "data-progress-url" in page
        release.set()
        finish_background_runs()
    finally:
        execution.import_run_execute = real
        release.set()
    run.refresh_from_db()
    assert (run.status, run.processed, run.total) == ("succeeded", 2, 2)
    progress = client.get(reverse("admin:publications_importrun_progress", args=[run.pk])).json()
    assert progress["finished"] is True and progress["text"] == "2 / 2 (100%)"


@pytest.mark.django_db(transaction=True)
def test_a_run_that_fails_at_once_is_never_called_queued(client, uploads_dir, monkeypatch):
    from ingestion.importing import positions

    def broken(*args, **kwargs):
        raise OSError("disk gone")

    monkeypatch.setattr(positions, "file_pages", broken)
    client.force_login(UserFactory(username="curator3", is_staff=True, is_superuser=True))
    response = upload(client, "works.json", list_page(works(1), 1))
    finish_background_runs()
    run = ImportRun.objects.get()
    page = client.get(response.url).content.decode()
    assert run.status == "failed", run.status
    assert "Stopped by an error: disk gone" in page
    assert "queued" not in page.lower()
    assert 'data-progress="status">Failed</span>' in page
    assert 'data-finished="true"' in page


@pytest.mark.django_db
def test_progress_never_shows_more_done_than_the_total(tmp_path, settings):
    """Two list pages in two files: each page's count is its own, the run's total is both."""
    settings.IMPORT_BATCH_SIZE = 5
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_bytes(list_page(works(1, 2), 2))
    second.write_bytes(list_page(works(*range(10, 36)), 1000))  # a query's count, not the file's
    entity = tmp_path / "c.json"
    entity.write_bytes(json.dumps(works(40)[0]).encode())
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(first), str(second), str(entity)]},
        queue=False,
    )
    seen = []
    import_run_execute(run_id=run.pk, progress=lambda r: seen.append((r.processed, r.total)))
    assert all(total is None or done <= total for done, total in seen), seen
    assert (2, 2) in seen and (28, 28) in seen
    run.refresh_from_db()
    assert (run.status, run.processed, run.total) == ("succeeded", 29, 29)


@pytest.mark.django_db
def test_the_progress_line_clamps_a_drifting_estimate(staff_client):
    run = ImportRun.objects.create(
        source="openalex",
        kind="author",
        parameters={"id": "A1"},
        status="running",
        processed=28,
        total=26,
    )
    state = staff_client.get(reverse("admin:publications_importrun_progress", args=[run.pk])).json()
    assert state["text"] == "28 read" and state["percent"] is None
    listing = staff_client.get(reverse("admin:publications_importrun_changelist")).content.decode()
    assert "28 / 26" not in listing and "28 read" in listing


@pytest.mark.django_db
def test_progress_asks_for_the_view_permission(client):
    run = ImportRun.objects.create(source="openalex", kind="author", parameters={"id": "A1"})
    url = reverse("admin:publications_importrun_progress", args=[run.pk])
    clerk = UserFactory(username="clerk", is_staff=True)
    client.force_login(clerk)
    assert client.get(url).status_code == 403
    clerk.user_permissions.add(Permission.objects.get(codename="view_importrun"))
    client.force_login(clerk)
    assert client.get(url).json()["status"] == "queued"

"""A large snapshot written by several processes lands as it does when one process writes it."""

import os
import signal
import time
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from catalogue.models import (
    ImportRun,
    SourceRecord,
    Work,
)
from devtools.corpus import generate_works, write_corpus
from ingestion.importing import dispatch
from ingestion.importing.execution import import_run_execute
from ingestion.sources import files
from tests.ingestion.importing.import_files import file_run, run_files, write_lines, written

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="parts are written by processes of their own on PostgreSQL (set DATABASE_URL)",
)
WORKS = 2 * files.BATCH + 200
pytestmark = pytest.mark.usefixtures("follow_ups_queued")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "works.jsonl"
    write_corpus(path, WORKS, seed=7)
    return path


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_snapshot_written_in_two_processes_lands_as_in_one(corpus, settings):
    settings.IMPORT_PARTS = 1
    alone = run_files(corpus)
    expected = written()
    assert len(expected["candidates"]) > 5  # preprints and other records with a shared title
    call_command("flush", interactive=False, verbosity=0)

    settings.IMPORT_PARTS, settings.IMPORT_PARTS_MIN_BYTES = 2, 0
    settings.IMPORT_BATCH_SIZE = 500  # where batches end makes no difference either
    run = run_files(corpus)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert len(run.cursor["parts"]) == 2  # each part kept its own position
    assert run.processed == WORKS
    assert run.counters == alone.counters
    assert written() == expected

    again = run_files(corpus)  # a second import, in parts too, changes nothing
    assert again.counters == {"created": 0, "updated": 0, "unchanged": WORKS, "problems": 0}
    assert written() == expected


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_part_killed_mid_run_fails_the_run_and_a_retry_finishes_it(corpus, settings):
    import multiprocessing

    settings.IMPORT_PARTS = 1
    run_files(corpus)
    expected = written()
    call_command("flush", interactive=False, verbosity=0)
    settings.IMPORT_PARTS, settings.IMPORT_PARTS_MIN_BYTES = 2, 0
    settings.IMPORT_BATCH_SIZE = 250  # several batches for each part
    killed = []

    def kill_the_other_part_once_it_wrote_a_batch(run):
        if killed:
            return
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            cursor = ImportRun.objects.get(pk=run.pk).cursor
            if cursor and cursor["parts"][1]:
                break
            time.sleep(0.02)
        (child,) = multiprocessing.active_children()
        os.kill(child.pid, signal.SIGKILL)
        killed.append(ImportRun.objects.get(pk=run.pk).cursor["parts"][1])

    run = run_files(corpus, progress=kill_the_other_part_once_it_wrote_a_batch)

    assert run.status == ImportRun.Status.FAILED
    assert "part 2 of 2" in run.error and "exit code -9" in run.error
    # This process noticed at its next batch and stopped writing: two batches, not all.
    assert run.cursor["parts"][0]["at"] == {"records": 500}
    assert run.processed < WORKS
    settings.IMPORT_BATCH_SIZE = 400  # positions count records: any batch size resumes alike
    dispatch.import_run_retry(run=run)
    run.refresh_from_db()
    assert run.status == ImportRun.Status.QUEUED
    import_run_execute(run_id=run.pk)  # as a worker takes it: each part resumes where it stopped
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.processed == WORKS
    assert SourceRecord.objects.count() == WORKS
    assert written() == expected


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_record_seen_again_in_a_later_file_ends_as_that_file_has_it(tmp_path, settings):
    """Parts keep file order for each record: all its lines are written by one part.

    The later file revises the last records of the first one on lines that, cut into
    blocks, a part with nothing else to do would write before the first file's
    versions.
    """
    settings.IMPORT_PARTS, settings.IMPORT_PARTS_MIN_BYTES = 2, 0
    settings.IMPORT_BATCH_SIZE = 250
    records = list(generate_works(2 * files.BATCH, seed=3))
    revised = [{**r, "title": f"{r['title']} (revised)"} for r in records[900 : files.BATCH]]
    first = write_lines(tmp_path / "a.jsonl", records[: files.BATCH])
    later = write_lines(tmp_path / "b.jsonl", records[files.BATCH :] + revised)

    run = run_files(first, later)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert len(run.cursor["parts"]) == 2
    n = len(records)
    assert run.counters == {"created": n, "updated": 100, "unchanged": 0, "problems": 0}
    titles = dict(Work.objects.values_list("openalex_id", "title"))
    assert {titles[r["id"].rsplit("/", 1)[1]] for r in revised} == {r["title"] for r in revised}


@contextmanager
def a_first_writer_holding_part(run, index=0):
    """A connection of its own holding the part's lock, as another process writing it would."""
    import psycopg

    database = connection.settings_dict
    other = psycopg.connect(
        dbname=database["NAME"],
        user=database["USER"],
        host=database["HOST"],
        port=database["PORT"] or 5432,
        password=database["PASSWORD"] or None,
        autocommit=True,
    )
    other.execute("SELECT pg_advisory_lock(%s, %s)", [run.pk, index])
    with other:
        yield lambda: other.execute("SELECT pg_advisory_unlock(%s, %s)", [run.pk, index])


def in_a_thread(function):
    import threading

    from django.db import connections

    def target():
        try:
            function()
        finally:
            connections.close_all()

    thread = threading.Thread(target=target)
    thread.start()
    return thread


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_part_is_written_by_one_process_at_a_time(tmp_path, settings):
    """A second writer of a part waits for the first, then goes on from where it left off."""
    settings.IMPORT_PARTS, settings.IMPORT_BATCH_SIZE = 1, 100
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(300)))
    run = file_run(path)
    with a_first_writer_holding_part(run) as let_go:
        thread = in_a_thread(lambda: import_run_execute(run_id=run.pk))
        time.sleep(1.5)
        assert ImportRun.objects.get(pk=run.pk).processed == 0  # waiting for the first writer
        # The first writer saves its first batch, then lets go.
        first_batch = {"at": {"records": 100}, "done": 0}
        ImportRun.objects.filter(pk=run.pk).update(cursor=first_batch, processed=100)
        let_go()
        thread.join(60)

    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.processed == 300
    assert SourceRecord.objects.count() == 200  # the first batch was left to the first writer


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_run_the_first_writer_finished_is_left_as_it_is(tmp_path, settings):
    settings.IMPORT_PARTS = 1
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(50)))
    run = file_run(path)
    with a_first_writer_holding_part(run) as let_go:
        thread = in_a_thread(lambda: import_run_execute(run_id=run.pk))
        time.sleep(1)
        finished = ImportRun.objects.filter(pk=run.pk)
        finished.update(status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now())
        finished_at = finished.get().finished_at
        let_go()
        thread.join(60)

    run.refresh_from_db()
    assert (run.status, run.finished_at, run.processed) == (
        ImportRun.Status.SUCCEEDED,
        finished_at,
        0,
    )
    assert not SourceRecord.objects.exists()

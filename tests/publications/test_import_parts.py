"""A large snapshot written by several processes lands as it does when one process writes it.

Also: records of one batch that describe one work are written one after the
other, and a batch that deadlocks with another writer is written again whole.
"""

import json
import logging
import os
import signal
import time
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection
from django.utils import timezone

from bench.corpus import generate_works, write_corpus
from publications.importing import dispatch, ingesting, parts, positions, runs
from publications.importing.dispatch import import_run_create
from publications.importing.execution import import_run_execute
from publications.models import (
    Authorship,
    ImportProblem,
    ImportRun,
    MergeCandidate,
    SourceRecord,
    Work,
)
from publications.sources import files
from tests.publications.doubles import fails_on_call

SNAPSHOT = "openalex/snapshot/works__updated_date=2021-11-03__part_000.jsonl"


def file_run(*paths):
    """A run over recorded files, created but not yet carried out."""
    return import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )


def run_files(*paths, progress=None):
    return import_run_execute(run_id=file_run(*paths).pk, progress=progress)


def write_lines(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


# Reading a file in parts ----------------------------------------------------


def test_parts_of_a_snapshot_share_its_lines_by_record(tmp_path):
    path = tmp_path / "works.jsonl"
    write_corpus(path, 2 * files.BATCH + 500)
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]

    def read(part):
        return [p["id"] for page in files.read_file(path, part) for p in page.payloads]

    first, second = read(files.Part(0, 2)), read(files.Part(1, 2))
    assert sorted(first + second) == sorted(ids)  # every line once
    assert first == [i for i in ids if i in set(first)]  # each part in file order
    assert 0.4 < len(first) / len(ids) < 0.6  # shared about evenly
    assert read(files.WHOLE) == ids


def test_every_line_of_one_record_goes_to_the_same_part(tmp_path):
    """Wherever its id stands in the line and however it is written, so its versions keep order."""
    records = list(generate_works(200))
    reordered = [{k: v for k, v in reversed(r.items())} for r in records]  # "id" last
    plain = [{**r, "id": r["id"].replace("https:", "http:")} for r in records]
    paths = [
        write_lines(tmp_path / "a.jsonl", records),
        write_lines(tmp_path / "b.jsonl", reordered),
        write_lines(tmp_path / "c.jsonl", plain),
    ]
    owners = {}
    for index in (0, 1):
        for path in paths:
            for page in files.read_file(path, files.Part(index, 2)):
                for payload in page.payloads:
                    key = payload["id"].rsplit("/", 1)[-1]
                    owners.setdefault(key, set()).add(index)
    assert len(owners) == 200
    assert all(len(parts) == 1 for parts in owners.values())
    assert {next(iter(parts)) for parts in owners.values()} == {0, 1}


def test_a_file_that_is_one_document_belongs_to_the_first_part(real_fixtures):
    feed = (
        real_fixtures
        / "arxiv/legacy-2016/query__au-del_maestro_AND_ti-checkerboard__2016-10.atom.xml"
    )
    assert list(files.read_file(feed, files.Part(1, 2))) == []
    assert [page.entity for page in files.read_file(feed, files.Part(0, 2))] == ["arxiv"]


def test_a_bad_line_is_reported_by_the_part_that_owns_it(tmp_path):
    lines = [json.dumps(w) for w in generate_works(files.BATCH + 10)]
    lines[files.BATCH + 3] = "{not json"
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join(lines) + "\n")
    errors = {
        index: [
            i for i in files.read_file(path, files.Part(index, 2)) if not hasattr(i, "payloads")
        ]
        for index in (0, 1)
    }
    assert errors[0] == []
    assert [str(e).split(":")[0] for e in errors[1]] == [f"works.jsonl line {files.BATCH + 4}"]


def test_a_bad_line_before_the_saved_position_is_not_reported_again(tmp_path, settings):
    settings.IMPORT_BATCH_SIZE = 100
    lines = [json.dumps(w) for w in generate_works(300)]
    lines.insert(200, "{not json")  # read after the first two batches of 100
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join(lines) + "\n")

    def errors(**position):
        pages = positions.file_pages([str(path)], position)
        return [i for i in pages if not hasattr(i, "payloads")]

    (error,) = errors(records=0)
    assert error.resume_at == {"records": 200, "problems": 1}  # saved when it is recorded
    assert len(errors(records=200)) == 1  # saved by the batch before it: not recorded yet
    assert errors(records=200, problems=1) == []
    assert errors(records=300) == []


@pytest.mark.django_db
def test_a_run_resumed_after_recording_a_bad_line_records_it_once(tmp_path, settings):
    settings.IMPORT_BATCH_SIZE = 100
    lines = [json.dumps(w) for w in generate_works(300)]
    lines.insert(200, "{not json")
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = run_files(path)
    assert run.counters["problems"] == 1
    # Stopped right after recording the problem: the cursor it saved then.
    ImportRun.objects.filter(pk=run.pk).update(
        status=ImportRun.Status.FAILED,
        cursor={"at": {"records": 200, "problems": 1}, "done": 0},
        processed=200,
    )
    run = import_run_execute(run_id=run.pk)  # as a retry does

    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.processed == 300
    assert run.counters["problems"] == 1
    assert ImportProblem.objects.filter(run=run).count() == 1


def test_older_positions_counted_batches(tmp_path, settings):
    settings.IMPORT_BATCH_SIZE = 100
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(300)))
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]

    def read(at, part=files.WHOLE):
        return [
            p["id"] for page in positions.file_pages([str(path)], at, part) for p in page.payloads
        ]

    assert read(2) == ids[200:]  # two batches written, in one part
    # In parts, lines were shared by blocks then: the part reads its records again.
    assert read(2, positions.Part(0, 2)) == read(None, positions.Part(0, 2))


def test_a_file_position_counts_records_whatever_the_batch_size(tmp_path, settings):
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(300)))
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]
    settings.IMPORT_BATCH_SIZE = 100
    first = next(positions.file_pages([str(path)], None))
    assert first.next_cursor == {"records": 100}

    settings.IMPORT_BATCH_SIZE = 40  # resumed with smaller batches: the same records follow
    pages = list(positions.file_pages([str(path)], first.next_cursor))
    assert [p["id"] for page in pages for p in page.payloads] == ids[100:]
    assert pages[0].next_cursor == {"records": 140}
    settings.IMPORT_BATCH_SIZE = 250  # or larger ones, from the middle of a batch
    pages = list(positions.file_pages([str(path)], {"records": 120}))
    assert [p["id"] for page in pages for p in page.payloads] == ids[120:]


@pytest.mark.django_db
def test_a_run_resumes_in_as_many_parts_as_it_started_with(tmp_path, settings):
    settings.IMPORT_PARTS, settings.IMPORT_PARTS_MIN_BYTES = 3, 0
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(5)))
    run = file_run(path)
    fresh = 3 if connection.vendor == "postgresql" else 1
    assert parts.part_count(run) == fresh
    run.cursor = {"parts": [{"at": 1, "done": 0}, None]}
    assert parts.part_count(run) == 2
    run.cursor = {"at": 4, "done": 0}  # started (or resumed) in one part: it goes on in one
    assert parts.part_count(run) == 1


@pytest.mark.django_db
def test_a_run_stopped_by_an_unexpected_error_says_so_and_resumes(tmp_path, settings, monkeypatch):
    settings.IMPORT_BATCH_SIZE = 100
    path = write_lines(tmp_path / "w.jsonl", list(generate_works(300)))
    real_update = runs.import_run_progress_save
    breaks = fails_on_call(real_update, 2, RuntimeError("the disk went away"))
    monkeypatch.setattr(runs, "import_run_progress_save", breaks)
    with pytest.raises(RuntimeError):
        run_files(path)
    run = ImportRun.objects.get()
    assert run.status == ImportRun.Status.FAILED  # not left "running"
    assert run.error == "Stopped by an error: the disk went away"
    assert run.processed == 100

    monkeypatch.setattr(runs, "import_run_progress_save", real_update)
    dispatch.import_run_retry(run=run)
    run = import_run_execute(run_id=run.pk)  # as the queued retry does
    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.processed == 300
    assert SourceRecord.objects.count() == 300


# Title matches between parts ----------------------------------------------------


@pytest.mark.django_db
def test_title_matches_two_parts_missed_are_raised_once_afterwards():
    from django.utils import timezone

    from publications.ingest.title_matches import raise_title_candidates_between_parts
    from publications.models import LinkConstraint
    from tests.factories import WorkFactory

    run = ImportRun.objects.create(
        source="openalex", kind="file", parameters={}, started_at=timezone.now()
    )

    def work(title, openalex_id=None, doi=None, in_run=True):
        made = WorkFactory(
            title=title, openalex_id=openalex_id, doi=doi, first_author_surname="lovelace"
        )
        SourceRecord.objects.create(
            source="arxiv" if openalex_id is None else "openalex",
            external_id=openalex_id or f"local-{made.pk}",
            payload={},
            content_hash="x",
            fetched_at=timezone.now(),
            work=made,
            import_run=run if in_run else None,
        )
        return made

    older = work("Notes on engines")
    Work.objects.filter(pk=older.pk).update(created_at=timezone.now() - timezone.timedelta(days=1))
    bare = work("Notes on engines")
    with_id = work("Notes on engines", "W1")
    other_id = work("Notes on engines", "W2")  # with_id and other_id: told apart by their ids
    work("On two DOIs", doi="10.1/a")
    work("On two DOIs", doi="10.1/b")  # different DOIs: different works
    kept_a, kept_b = work("Kept apart"), work("Kept apart", "W3")
    LinkConstraint.objects.create(
        kind=LinkConstraint.Kind.CANNOT_LINK, work=kept_a, other_work=kept_b
    )
    work("A title of its own")
    # A preprint's record (arXiv DOI) and a published version's, each with an OpenAlex id.
    preprint = work("Engines of thought", "W4", doi="10.48550/arxiv.2101.00001")
    published = work("Engines of thought", "W5", doi="10.1000/journal.1")
    work("Engines of thought", "W6")  # no DOI to set against the preprint's: the ids differ

    assert raise_title_candidates_between_parts(run) == 3
    pairs = {frozenset(p) for p in MergeCandidate.objects.values_list("work_a", "work_b")}
    assert pairs == {
        frozenset((bare.pk, with_id.pk)),
        frozenset((bare.pk, other_id.pk)),
        frozenset((preprint.pk, published.pk)),
    }
    assert raise_title_candidates_between_parts(run) == 0  # raised once


# One batch, several records of one work -------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("batch_size", [1000, 1])
def test_a_preprint_and_its_published_version_in_one_batch_become_one_work(
    real_fixtures, tmp_path, settings, caplog, batch_size
):
    """Where a batch ends makes no difference: the second record merges into the first's work."""
    settings.IMPORT_BATCH_SIZE = batch_size
    record = json.loads((real_fixtures / SNAPSHOT).read_text().splitlines()[0])
    preprint = {
        **record,
        "id": "https://openalex.org/W9900000001",
        "doi": "https://doi.org/10.48550/arxiv.2101.00001",
        "ids": {"openalex": "https://openalex.org/W9900000001"},
    }
    someone_else = {
        **preprint,
        "id": "https://openalex.org/W9900000002",
        "doi": "https://doi.org/10.48550/arxiv.2101.00002",
        "ids": {"openalex": "https://openalex.org/W9900000002"},
        "authorships": record["authorships"][1:],
    }
    assert (
        record["authorships"][0]["author"]["id"] != someone_else["authorships"][0]["author"]["id"]
    )
    caplog.set_level(logging.WARNING, logger="publications")

    run = run_files(write_lines(tmp_path / "w.jsonl", [record, preprint, someone_else]))

    assert run.counters == {"created": 2, "updated": 1, "unchanged": 0, "problems": 0}
    merged = SourceRecord.objects.get(external_id=record["id"].rsplit("/", 1)[1]).work
    assert SourceRecord.objects.get(external_id="W9900000001").work == merged
    assert merged.arxiv_id == "2101.00001"
    assert merged.authorships.count() == len(record["authorships"])
    other = SourceRecord.objects.get(external_id="W9900000002").work
    assert MergeCandidate.objects.filter(work_a=merged, work_b=other).exists()
    assert "one by one" not in caplog.text  # no record had to be written alone


# Losing a deadlock ------------------------------------------------------------


class Deadlock(Exception):
    sqlstate = "40P01"


@pytest.mark.django_db
def test_a_batch_that_loses_a_deadlock_is_written_again_whole(
    real_fixtures, settings, monkeypatch, caplog
):
    settings.IMPORT_BATCH_SIZE = 20
    real_ingest = ingesting.ingest
    calls = {"n": 0}

    def deadlocks_once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            real_ingest(*args, **kwargs)  # written, then rolled back with the deadlock
            raise DatabaseError("deadlock detected") from Deadlock()
        return real_ingest(*args, **kwargs)

    monkeypatch.setattr(ingesting, "ingest", deadlocks_once)
    caplog.set_level(logging.WARNING, logger="publications")
    run = run_files(real_fixtures / SNAPSHOT)

    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.processed == 50
    assert run.counters["created"] + run.counters["updated"] == 50
    assert SourceRecord.objects.count() == 50
    assert "met another writer's locks" in caplog.text
    assert "one by one" not in caplog.text


@pytest.mark.django_db
def test_an_error_that_is_not_a_deadlock_is_not_retried(real_fixtures, settings, monkeypatch):
    settings.IMPORT_BATCH_SIZE = 20
    calls = {"n": 0}

    def fails(*args, **kwargs):
        calls["n"] += 1
        raise DatabaseError("disk full")

    monkeypatch.setattr(ingesting, "ingest", fails)
    run = run_files(real_fixtures / SNAPSHOT)
    # Each record is then tried alone and quarantined: nothing is lost, nothing retried.
    assert run.counters["problems"] == 50
    assert calls["n"] == 3 + 50


# Several processes (PostgreSQL) -------------------------------------------------

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="parts are written by processes of their own on PostgreSQL (set DATABASE_URL)",
)
WORKS = 2 * files.BATCH + 200


def written() -> dict:
    """What an import wrote, by external ids (row ids differ from one import to another)."""
    works = {
        w["openalex_id"]: (w["title"], w["doi"], w["publication_year"], w["venue__name"])
        for w in Work.objects.values(
            "openalex_id", "title", "doi", "publication_year", "venue__name"
        )
    }
    authorships = set(
        Authorship.objects.values_list(
            "work__openalex_id", "author__openalex_id", "position", "confidence"
        )
    )
    candidates = {  # which of two works written at once is "a" depends on timing
        (kind, frozenset(pair))
        for kind, *pair in MergeCandidate.objects.values_list(
            "kind", "work_a__openalex_id", "work_b__openalex_id"
        )
    }
    return {"works": works, "authorships": authorships, "candidates": candidates}


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
    dispatch.import_run_retry(run=run)  # queued inline: it resumes each part where it stopped
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
        dbname=database["NAME"], user=database["USER"], host=database["HOST"],
        port=database["PORT"] or 5432, password=database["PASSWORD"] or None, autocommit=True,
    )  # fmt: skip
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
        ImportRun.Status.SUCCEEDED, finished_at, 0,
    )  # fmt: skip
    assert not SourceRecord.objects.exists()

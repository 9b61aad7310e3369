"""A large snapshot written by several processes lands as it does when one process writes it.

Also: records of one batch that describe one work are written one after the
other, and a batch that deadlocks with another writer is written again whole.
"""

import json
import logging
import os
import signal
import time

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection

from publications import imports
from publications.corpus import generate_works, write_corpus
from publications.imports import import_run_create, import_run_execute
from publications.models import Authorship, ImportRun, MergeCandidate, SourceRecord, Work
from publications.sources import files

SNAPSHOT = "openalex/snapshot/works__updated_date=2021-11-03__part_000.jsonl"


def run_files(*paths, progress=None):
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )
    return import_run_execute(run_id=run.pk, progress=progress)


def write_lines(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


# Reading a file in parts ----------------------------------------------------


def test_parts_of_a_snapshot_share_its_lines_in_blocks(tmp_path):
    path = tmp_path / "works.jsonl"
    write_corpus(path, 2 * files.BATCH + 500)
    ids = [json.loads(line)["id"] for line in path.read_text().splitlines()]

    def read(part):
        return [p["id"] for page in files.read_file(path, part) for p in page.payloads]

    first, second = read(files.Part(0, 2)), read(files.Part(1, 2))
    assert second == ids[files.BATCH : 2 * files.BATCH]
    assert first == ids[: files.BATCH] + ids[2 * files.BATCH :]
    assert read(files.WHOLE) == ids


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
    real_ingest = imports._ingest
    calls = {"n": 0}

    def deadlocks_once(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            real_ingest(*args, **kwargs)  # written, then rolled back with the deadlock
            raise DatabaseError("deadlock detected") from Deadlock()
        return real_ingest(*args, **kwargs)

    monkeypatch.setattr(imports, "_ingest", deadlocks_once)
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

    monkeypatch.setattr(imports, "_ingest", fails)
    run = run_files(real_fixtures / SNAPSHOT)
    # Each record is then tried alone and quarantined: nothing is lost, nothing retried.
    assert run.counters["problems"] == 50
    assert calls["n"] == 3 + 50


# Several processes (PostgreSQL) -------------------------------------------------

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="parts are written by processes of their own on PostgreSQL (set DATABASE_URL)",
)
WORKS = 2 * files.BATCH + 200  # three blocks of lines: 0 and 2 for one part, 1 for the other


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
    assert run.processed < WORKS
    imports.import_run_retry(run=run)  # queued inline: it resumes each part where it stopped
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.processed == WORKS
    assert SourceRecord.objects.count() == WORKS
    assert written() == expected

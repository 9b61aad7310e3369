"""Reading recorded files in parts: which part owns each record, and where a run resumes."""

import json

import pytest
from django.db import connection

from catalogue.models import (
    ImportProblem,
    ImportRun,
    SourceRecord,
)
from devtools.corpus import generate_works, write_corpus
from ingestion.importing import dispatch, parts, positions, runs
from ingestion.importing.execution import import_run_execute
from ingestion.sources import files
from tests.ingestion.importing.doubles import fails_on_call
from tests.ingestion.importing.import_files import file_run, run_files, write_lines

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

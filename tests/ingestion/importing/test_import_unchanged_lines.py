"""A snapshot imported again: lines already stored are found by their digest, unparsed.

A line is skipped only when it is, byte for byte, the line its record was last
written from and that record is still linked; anything else is parsed and goes
the usual way (checked by content, written if it changed).
"""

import json

import pytest

from catalogue.models import ImportProblem, SourceRecord, Work
from devtools.corpus import generate_works
from ingestion.importing.pipeline import write_batch
from ingestion.importing.positions import Position
from ingestion.ingest.hashing import content_hash
from ingestion.sources import lines
from tests.ingestion.importing.import_files import file_run, run_files, write_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def parsed(monkeypatch):
    """How many lines were parsed after the reader handed them on unparsed."""
    calls = []
    real = lines.parse_line

    def counting(line):
        calls.append(line)
        return real(line)

    monkeypatch.setattr(lines, "parse_line", counting)
    return calls


def records(count=30):
    return list(generate_works(count))


def test_an_unchanged_snapshot_is_not_parsed_again(tmp_path, parsed):
    path = write_lines(tmp_path / "works.jsonl", records())
    first = run_files(path)
    assert first.counters["created"] == 30
    assert len(parsed) == 30  # parsed once, when first written
    stored = SourceRecord.objects.exclude(line_digest="")
    assert stored.count() == 30

    parsed.clear()
    again = run_files(path)

    assert again.counters["unchanged"] == 30
    assert again.counters["created"] == again.counters["updated"] == 0
    assert parsed == []


def test_a_changed_line_is_written_with_its_new_digest(tmp_path, parsed):
    works = records()
    run_files(write_lines(tmp_path / "a.jsonl", works))
    works[3] = {**works[3], "title": "A corrected title", "display_name": "A corrected title"}
    path = write_lines(tmp_path / "b.jsonl", works)
    parsed.clear()

    run = run_files(path)

    assert run.counters["updated"] == 1 and run.counters["unchanged"] == 29
    assert len(parsed) == 1
    record = SourceRecord.objects.get(work__title="A corrected title")
    assert record.content_hash == content_hash(works[3])
    line = path.read_bytes().splitlines()[3]
    assert record.line_digest == lines.line_digest(line)


def test_the_same_record_written_another_way_is_unchanged_and_remembered(tmp_path, parsed):
    """Keys in another order: same content, new bytes. Unchanged; next time not parsed."""
    works = records()
    run_files(write_lines(tmp_path / "a.jsonl", works))
    spaced = tmp_path / "b.jsonl"
    spaced.write_text(
        "\n".join(
            json.dumps({"id": w["id"], **dict(reversed(w.items()))}, indent=None) for w in works
        )
    )
    parsed.clear()

    run = run_files(spaced)
    assert run.counters["unchanged"] == 30 and run.counters["updated"] == 0
    assert len(parsed) == 30  # new bytes: parsed, and found equal by content

    parsed.clear()
    assert run_files(spaced).counters["unchanged"] == 30
    assert parsed == []


def test_a_line_whose_record_was_unlinked_is_read_again(tmp_path, parsed):
    works = records(5)
    path = write_lines(tmp_path / "a.jsonl", works)
    run_files(path)
    record = SourceRecord.objects.get(external_id=works[0]["id"].rsplit("/", 1)[-1])
    record.work = None
    record.save()
    parsed.clear()

    run = run_files(path)

    assert len(parsed) == 1
    assert run.counters["unchanged"] == 4
    record.refresh_from_db()
    assert record.work_id is not None


def test_a_record_rewritten_another_way_is_not_skipped_by_its_old_line(tmp_path, parsed):
    """A record written since from a payload with no line (an API page) forgets its line."""
    works = records(3)
    path = write_lines(tmp_path / "a.jsonl", works)
    run_files(path)
    newer = {**works[1], "title": "Newer, from the API", "display_name": "Newer, from the API"}
    api_run = file_run(path)
    write_batch(api_run, "work", [newer], Position(None, 0), None)
    assert SourceRecord.objects.get(work__title="Newer, from the API").line_digest == ""
    parsed.clear()

    run = run_files(path)

    assert run.counters["updated"] == 1
    assert Work.objects.filter(title="Newer, from the API").count() == 0
    assert len(parsed) == 1


def test_a_broken_line_is_quarantined_and_the_rest_imported(tmp_path):
    works = records(4)
    text = [json.dumps(w) for w in works]
    text[1] = text[1][: len(text[1]) // 2]  # cut: not JSON, though its id stands first
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(text) + "\n")

    run = run_files(path)

    assert run.counters["created"] == 3
    problem = ImportProblem.objects.get()
    assert "line 2: not valid JSON" in problem.error
    assert problem.raw_payload == text[1]


def test_a_line_giving_its_id_twice_is_quarantined(tmp_path):
    """The reader goes by the id at the start; the parser would keep the last one."""
    works = records(3)
    twice = json.dumps(works[1])[:-1] + ', "id": "https://openalex.org/W42"}'
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join([json.dumps(works[0]), twice, json.dumps(works[2])]) + "\n")

    run = run_files(path)

    assert run.counters["created"] == 2
    assert "gives its id more than once" in ImportProblem.objects.get().error
    assert not SourceRecord.objects.filter(external_id="W42").exists()

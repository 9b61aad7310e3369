"""A bad record imported again counts on its open problem instead of adding a row."""

import json

import pytest

from catalogue.models import ImportProblem
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file

pytestmark = pytest.mark.django_db

NO_TITLE = {"id": "https://openalex.org/W404", "title": None, "display_name": None}


def lines(*records) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def test_importing_the_same_file_twice_records_each_bad_record_once(tmp_path):
    text = openalex_page(openalex_work(1, "A good work"), NO_TITLE)
    first = run_file(tmp_path, text)
    second = run_file(tmp_path, text)
    problem = ImportProblem.objects.get()
    assert problem.external_id.endswith("W404")
    assert problem.status == ImportProblem.Status.OPEN
    assert (problem.seen_count, problem.run, problem.last_run) == (2, first, second)
    assert second.counters["problems"] == 1  # the run still says what it met


def test_unreadable_lines_are_told_apart_by_what_they_hold(tmp_path):
    text = lines(openalex_work(2, "Fine"), "{not json", "{also not json", "{not json")
    run_file(tmp_path, text, ".jsonl")
    run_file(tmp_path, text, ".jsonl")
    counts = sorted(ImportProblem.objects.values_list("raw_payload", "seen_count"))
    assert counts == [("{also not json", 2), ("{not json", 4)]


def test_a_closed_problem_met_again_opens_a_new_one(tmp_path):
    text = openalex_page(NO_TITLE)
    run_file(tmp_path, text)
    ImportProblem.objects.update(status=ImportProblem.Status.IGNORED)
    run_file(tmp_path, text)
    run_file(tmp_path, text)
    assert sorted(ImportProblem.objects.values_list("status", "seen_count")) == [
        ("ignored", 1),
        ("open", 2),
    ]


def test_the_same_id_failing_a_new_way_keeps_one_problem_with_the_latest_error(tmp_path):
    run_file(tmp_path, openalex_page(NO_TITLE))
    run_file(tmp_path, openalex_page({**NO_TITLE, "authorships": "not a list"}))
    problem = ImportProblem.objects.get()
    assert problem.seen_count == 2
    assert problem.payload["authorships"] == "not a list"

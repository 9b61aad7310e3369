"""arXiv's own details: only its taxonomy is stored as categories (MSC and ACM classes are
not), and an id arXiv does not return is a problem that names it, never silence."""

import pytest
import responses

from catalogue.models import ImportProblem, Topic, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.sources.arxiv import fetching
from ingestion.sources.arxiv.feed import parse_feed
from ingestion.sources.arxiv.mapping import map_entry
from tests.ingestion.sources.facts import arxiv_entry, arxiv_feed, run_file

pytestmark = pytest.mark.django_db

API = "https://export.arxiv.org/api/query"
FOUND = "query__id_list-1605.08386__2026-04.atom.xml"
EMPTY = "query__id_list-0000.0000__empty__2026-04.atom.xml"


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(fetching, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(fetching, "NUM_RETRIES", 0)


# Categories ---------------------------------------------------------------------------


def test_msc_and_acm_classes_are_not_stored_as_arxiv_categories(tmp_path, client):
    entry = arxiv_entry(
        "2402.00053",
        "Minimal surfaces",
        "2024-02-01",
        categories="math.DG math.AP 53C 05E10 14J60 53A10 F.2.2",
    )
    run_file(tmp_path, arxiv_feed(entry), ".atom")
    work = Work.objects.get(arxiv_id="2402.00053")
    assert work.arxiv_primary_category == "math.DG"
    assert sorted(work.topics.values_list("key", flat=True)) == ["arxiv:math.AP", "arxiv:math.DG"]
    assert not Topic.objects.filter(key__in=["arxiv:53C", "arxiv:05E10", "arxiv:F.2.2"]).exists()
    note = work.provenance["dropped"]["categories"]
    assert note["source"] == "arxiv"
    assert "53C, 05E10, 14J60, 53A10" in note["reason"] and "F.2.2" in note["reason"]
    page = client.get(work.get_absolute_url()).content.decode()
    assert "MSC classes 53C, 05E10, 14J60, 53A10; ACM classes F.2.2" in page


def test_every_arxiv_category_is_kept_and_only_those(real_fixtures):
    codes = "cs.LG hep-th cond-mat.str-el astro-ph q-bio.NC solv-int math-ph 53C42 I.2.7"
    payload = parse_feed(arxiv_feed(arxiv_entry("2402.00054", "A", "2024-02-01", categories=codes)))
    record = map_entry(payload.entries[0])
    assert [topic.key.removeprefix("arxiv:") for topic in record.topics] == codes.split()[:-2]
    assert record.dropped["categories"].endswith("53C42; ACM classes I.2.7")
    for path in sorted((real_fixtures / "arxiv").rglob("*.atom.xml")):
        if "error" in path.name:
            continue
        for payload in parse_feed(path.read_bytes()).entries:
            record = map_entry(payload)
            assert len(record.topics) == len(set(payload["categories"])), path.name
            assert "categories" not in record.dropped


# Ids arXiv does not return ------------------------------------------------------------


def _run_ids(ids: list[str]):
    run = import_run_create(source="arxiv", kind="ids", parameters={"ids": ids}, queue=False)
    import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    return run


@responses.activate
def test_an_id_arxiv_does_not_return_becomes_a_problem_naming_it(real_fixtures, fast):
    responses.get(API, body=(real_fixtures / "arxiv" / EMPTY).read_bytes())
    run = _run_ids(["0813.00001"])  # no month 13, and 2008 numbers have four digits
    assert run.status == "succeeded"
    problem = ImportProblem.objects.get()
    assert problem.source == "arxiv"
    assert problem.external_id == "0813.00001"
    assert "0813.00001" in problem.error and "arXiv returned no record" in problem.error
    assert run.counters["problems"] == 1
    _run_ids(["0813.00001"])  # asked again: the same problem, seen twice
    assert ImportProblem.objects.get().seen_count == 2


@responses.activate
def test_the_ids_arxiv_returns_are_imported_and_only_the_missing_one_is_a_problem(
    real_fixtures, fast
):
    responses.get(API, body=(real_fixtures / "arxiv" / FOUND).read_bytes())
    run = _run_ids(["1605.08386v1", "0801.99999"])
    assert Work.objects.filter(arxiv_id="1605.08386").exists()
    assert list(ImportProblem.objects.values_list("external_id", flat=True)) == ["0801.99999"]
    assert run.counters["problems"] == 1

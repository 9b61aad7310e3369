"""An author record's own counts (works, citations, h-index...) kept as the source gives them."""

import importlib
import json

import pytest

from catalogue.metrics import author_metrics_refresh
from catalogue.models import Author, AuthorInstitution, AuthorMetrics, ImportProblem
from ingestion.ingest.author_records import ingest_authors
from ingestion.records import MappingError
from ingestion.sources.openalex.entities import map_author
from tests.factories import AuthorFactory, InstitutionFactory
from tests.ingestion.sources.facts import run_file

pytestmark = pytest.mark.django_db

RECORDS = [
    "authors__A5017898742__joseph-mearman__2025-10.json",
    "authors__A5023888391__jason-priem__2023-10__legacy-schema.json",
    "authors__A5023888391__jason-priem__2025-06.json",
    "authors__A5048491430__heather-piwowar__2025-10.json",
    "authors__A5068542997__vincent-lariviere__2025-10.json",
    "authors__A5317838346__deleted-author__2025-06.json",
]


def _payload(real_fixtures, name: str) -> dict:
    return json.loads((real_fixtures / "openalex" / name).read_text())


def author_payload(**fields) -> dict:
    payload = {
        "id": "https://openalex.org/A5000000001",
        "display_name": "Ada Lovelace",
        "works_count": 33,
        "cited_by_count": 63,
        "summary_stats": {"2yr_mean_citedness": 1.5, "h_index": 4, "i10_index": 2},
        "topics": [
            {"id": f"https://openalex.org/T1{n:04d}", "display_name": f"Topic {n}", "count": 3}
            for n in range(25)
        ],
        "counts_by_year": [
            {"year": 2024, "works_count": 3, "cited_by_count": 20},
            {"year": 2023, "works_count": 5, "cited_by_count": 43},
        ],
        "updated_date": "2025-06-08T21:53:07.725446",
    }
    payload.update(fields)
    return payload


@pytest.mark.parametrize("name", RECORDS)
def test_every_recorded_author_keeps_the_counts_its_record_gives(real_fixtures, name):
    payload = _payload(real_fixtures, name)
    record = map_author(payload)
    stats = payload["summary_stats"]
    assert record.works_count == payload["works_count"]
    assert record.cited_by_count == payload["cited_by_count"]
    assert record.h_index == stats["h_index"]
    assert record.i10_index == stats["i10_index"]
    assert record.mean_citedness == stats["2yr_mean_citedness"]
    given = {e["year"]: e for e in payload["counts_by_year"]}
    assert [e["year"] for e in record.counts_by_year] == sorted(given)
    for entry in record.counts_by_year:
        assert entry["works"] == given[entry["year"]]["works_count"]
        assert entry["citations"] == given[entry["year"]]["cited_by_count"]
    assert record.updated_at.date().isoformat() == payload["updated_date"][:10]


def test_an_author_record_imported_alone_keeps_its_counts_and_affiliations(real_fixtures, tmp_path):
    name = "authors__A5023888391__jason-priem__2025-06.json"
    payload = _payload(real_fixtures, name)
    run = run_file(tmp_path, json.dumps(payload))
    assert run.status == "succeeded", run.error

    author = Author.objects.get(openalex_id="A5023888391")
    assert author.counts_source == "openalex"
    assert author.counts_as_of.date().isoformat() == payload["updated_date"][:10]
    assert author.source_works_count == payload["works_count"]
    assert author.source_cited_by_count == payload["cited_by_count"]
    assert author.source_h_index == payload["summary_stats"]["h_index"]
    assert author.source_i10_index == payload["summary_stats"]["i10_index"]
    assert author.source_topics_count == len(payload["topics"])
    assert len(author.source_counts_by_year) == len(payload["counts_by_year"])
    # Nothing of it is ours: no work is held, and the metrics say so.
    author_metrics_refresh(author_ids=[author.pk])
    assert AuthorMetrics.objects.get(author=author).works_count == 0
    # Every affiliation the record lists is marked as the record's.
    rows = AuthorInstitution.objects.filter(author=author)
    assert rows.count() == len(payload["affiliations"])
    assert all(row.in_author_record for row in rows)


def test_a_record_stored_before_its_counts_were_kept_gets_them_on_the_next_fetch():
    payload = author_payload()
    ingest_authors([(payload, map_author(payload))])
    Author.objects.update(counts_source="", source_works_count=None)  # as stored before
    result = ingest_authors([(payload, map_author(payload))])  # the same payload, unchanged
    assert result.updated == 1
    author = Author.objects.get(openalex_id="A5000000001")
    assert (author.counts_source, author.source_works_count) == ("openalex", 33)


def test_an_affiliation_the_record_drops_is_no_longer_the_records(tmp_path):
    place = {"id": "https://openalex.org/I1", "display_name": "Old Place"}
    listed = author_payload(affiliations=[{"institution": place, "years": [2019, 2020]}])
    run_file(tmp_path, json.dumps(listed))
    later = author_payload(affiliations=[], updated_date="2025-07-01T00:00:00")
    run_file(tmp_path, json.dumps(later))
    row = AuthorInstitution.objects.get(institution__name="Old Place")
    assert row.in_author_record is False
    assert row.years == [2020, 2019]  # kept: nothing is lost


@pytest.mark.parametrize(
    "stats",
    [
        {"h_index": -3, "i10_index": "12", "2yr_mean_citedness": -1.0},
        {"h_index": 10**40, "i10_index": 2**31, "2yr_mean_citedness": float("inf")},
        {"h_index": True, "i10_index": None, "2yr_mean_citedness": "1.5"},
        {},
        "not an object",
        None,
    ],
)
def test_summary_figures_that_are_not_counts_are_unknown(stats):
    record = map_author(author_payload(summary_stats=stats))
    assert (record.h_index, record.i10_index, record.mean_citedness) == (None, None, None)
    assert record.works_count == 33  # the rest of the record is kept


def test_yearly_counts_keep_only_entries_with_a_year_and_a_count():
    record = map_author(
        author_payload(
            counts_by_year=[
                {"year": 2022, "works_count": 2, "cited_by_count": 9},
                {"year": 2022, "works_count": 7, "cited_by_count": 99},  # a repeat: first kept
                {"year": "2021", "works_count": 1, "cited_by_count": 1},
                {"year": 99999, "works_count": 1, "cited_by_count": 1},
                {"year": 2020, "works_count": -1, "cited_by_count": "many"},
                {"year": 2019, "works_count": 10**30, "cited_by_count": 4},
                "not an entry",
                None,
            ]
        )
    )
    assert record.counts_by_year == [
        {"year": 2019, "works": None, "citations": 4},
        {"year": 2022, "works": 2, "citations": 9},
    ]


def test_a_record_without_counts_keeps_none_of_them(tmp_path):
    payload = author_payload()
    for key in ("works_count", "cited_by_count", "summary_stats", "topics", "counts_by_year"):
        payload.pop(key)
    run_file(tmp_path, json.dumps(payload))
    author = Author.objects.get(openalex_id="A5000000001")
    assert author.source_works_count is None
    assert author.source_cited_by_count is None
    assert author.source_h_index is None
    assert author.source_topics_count is None
    assert author.source_counts_by_year == []


@pytest.mark.parametrize("works_count", [-1, "33", 2**31, 10**40])
def test_a_works_count_that_is_no_count_stops_the_record_with_a_problem(tmp_path, works_count):
    with pytest.raises(MappingError, match="works_count"):
        map_author(author_payload(works_count=works_count))
    run = run_file(tmp_path, json.dumps(author_payload(works_count=works_count)))
    assert not Author.objects.filter(openalex_id="A5000000001").exists()
    problem = ImportProblem.objects.get(run=run)
    assert "works_count" in problem.error
    assert problem.payload["works_count"] == works_count  # the whole payload is kept


def test_affiliations_stored_with_years_are_marked_as_the_author_records():
    from django.apps import apps

    migration = importlib.import_module("catalogue.migrations.0027_author_source_counts")
    author = AuthorFactory()
    dated = AuthorInstitution.objects.create(
        author=author, institution=InstitutionFactory(), years=[2020]
    )
    undated = AuthorInstitution.objects.create(author=author, institution=InstitutionFactory())
    migration.mark_record_affiliations(apps, None)
    dated.refresh_from_db()
    undated.refresh_from_db()
    assert (dated.in_author_record, undated.in_author_record) == (True, False)

"""Records whose identifiers another work holds: set aside in the batch, as if written alone.

A record may name one work by its DOI and bring the arXiv id of another, or give
its work a DOI that another record of the batch gives another work. Written
alone, the database refuses it and it becomes an import problem; the rest of its
batch is written as usual, without writing each of its records alone, and what
each record becomes is what it became when each was written alone.
"""

import json
import logging

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from catalogue.models import ImportProblem, ImportRun, MergeCandidate, SourceRecord, Work
from ingestion.importing import ingesting
from ingestion.importing.quarantine import kept_payload
from ingestion.ingest import works as work_batches
from ingestion.ingest.batch import BatchResult
from ingestion.sources.arxiv import mapping as arxiv
from ingestion.sources.openalex import mapping as openalex
from tests.curation.curation_records import arxiv_entry
from tests.ingestion.importing.import_files import run_files, write_lines

pytestmark = pytest.mark.django_db

NAMES = ["Ada Lovelace", "Charles Babbage", "Mary Somerville", "Grace Hopper", "Alan Turing"]


def oa(number: int, *, doi: str = "", arxiv_id: str = "", cited: int = 1, title: str = "") -> dict:
    """An OpenAlex work; ``arxiv_id`` comes as a location on arxiv.org."""
    payload = {
        "id": f"https://openalex.org/W71{number:08d}",
        "title": title or f"On the {number}th widget",
        "doi": f"https://doi.org/{doi}" if doi else None,
        "type": "article",
        "publication_year": 2020,
        "publication_date": "2020-05-01",
        "cited_by_count": cited,
        "authorships": [{"author": {"id": None, "display_name": NAMES[number % len(NAMES)]}}],
    }
    if arxiv_id:
        payload["locations"] = [{"landing_page_url": f"https://arxiv.org/abs/{arxiv_id}"}]
    return payload


def ax(arxiv_id: str, **extra) -> dict:
    return arxiv_entry(arxiv_id, f"Widgets {arxiv_id}", ["Emmy Noether"], **extra)


def mapped(payloads: list[dict]) -> list[tuple[dict, object]]:
    return [(p, arxiv.map_entry(p) if "arxiv_id" in p else openalex.map_work(p)) for p in payloads]


SEED = [
    oa(1, doi="10.1000/s1"),
    oa(2, doi="10.48550/arxiv.2101.00002"),  # a preprint: its arXiv id from its DOI
    oa(3, doi="10.1000/s3"),
    oa(5),
    oa(6, doi="10.1000/s6"),
    oa(7, doi="10.1000/s7"),
    oa(8, doi="10.1000/s8"),
    oa(9),
]
SEED_ARXIV = [ax("2101.00010"), ax("2101.00011")]

# One batch, in file order: each comment says what the record meets.
BATCH = [
    oa(101, doi="10.1000/s1", arxiv_id="2101.00002"),  # DOI of one stored work, arXiv id of another
    oa(102, doi="10.1000/g1"),  # a new work
    oa(103, doi="10.1000/s3"),  # a stored work's DOI alone: that work (not a conflict)
    oa(104, doi="10.1000/g2"),
    oa(106, doi="10.48550/arxiv.2102.00009"),
    oa(105, doi="10.1000/g2", arxiv_id="2102.00009"),  # the DOI and arXiv id of two records above
    oa(5, doi="10.1000/new", cited=9),  # a stored work takes a new DOI ...
    oa(6, doi="10.1000/new", cited=9),  # ... which another record gives another stored work
    oa(3, doi="10.1000/s6", cited=9),  # a new version of a record, with a DOI held above
    oa(9, doi="10.1000/late", cited=9),
    oa(107, doi="10.1000/late", arxiv_id="2101.00010"),  # the DOI given above names work 9
    oa(12, doi="10.1000/late2", arxiv_id="2101.00011"),  # an arXiv work takes a DOI ...
    oa(108, doi="10.1000/late2", arxiv_id="2101.00010"),  # ... and keeps its own arXiv id: merged
    oa(109, doi="10.1000/s7"),  # a DOI of a work merged into another
    oa(110, doi="10.1000/g3", title="On the 1th widget"),  # a title of a stored work, no conflict
    oa(1, doi="10.1000/s1", cited=5),  # a record whose work a conflict above named
    oa(111, doi="10.1000/g4", arxiv_id="2101.00002"),  # a stored work's arXiv id alone: that work
]
ARXIV_BATCH = [
    ax("2101.00002", doi="10.1000/s6"),  # arXiv names work 6 by its DOI, work 2 holds the arXiv id
    ax("2101.00012", doi="10.1000/g9"),
    ax("2101.00013", doi="10.1000/s8"),
]


@pytest.fixture
def run():
    return ImportRun.objects.create(source="openalex", kind="file", parameters={})


@pytest.fixture
def seeded(run):
    """Stored works to collide with; work 7 merged into work 8."""
    for entity, payloads in (("work", SEED), ("arxiv", SEED_ARXIV)):
        problems = []
        ingesting.ingest_isolating_bad_records(run, entity, mapped(payloads), problems)
        assert problems == []
    kept = Work.objects.get(doi="10.1000/s8")
    Work.objects.filter(doi="10.1000/s7").update(merged_into=kept)
    return run


def _work_key(work: Work | None):
    return work and (work.doi, work.arxiv_id, work.openalex_id)


def state() -> dict:
    """Everything written, by external ids (row ids of new works differ from one write to another)."""
    works = {
        _work_key(w): (
            w.title,
            w.cited_by_count,
            _work_key(w.merged_into),
            frozenset(w.source_records.values_list("source", "external_id")),
            frozenset(w.authorships.values_list("author__display_name", "position")),
        )
        for w in Work.objects.select_related("merged_into")
    }
    candidates = {
        frozenset((_work_key(c.work_a), _work_key(c.work_b)))
        for c in MergeCandidate.objects.select_related("work_a", "work_b")
    }
    return {"works": works, "candidates": candidates, "records": SourceRecord.objects.count()}


def _summary(result: BatchResult, problems: list[ImportProblem]):
    kept = sorted((p.source, p.external_id, json.dumps(p.payload)) for p in problems)
    return (result.created, result.updated, result.unchanged), kept


def written_alone(run, entity, payloads, monkeypatch):
    """Each record written alone, in order, the database deciding: what a batch's records became
    when a batch that failed was written again record by record."""
    with transaction.atomic(), monkeypatch.context() as patch:
        patch.setattr(work_batches, "sort_out", lambda pending, holders: None)
        total, problems = BatchResult(), []
        for item in mapped(payloads):
            total.add(ingesting.ingest_isolating_bad_records(run, entity, [item], problems))
        outcome = state(), _summary(total, problems)
        transaction.set_rollback(True)
    return outcome, problems


def written_as_batch(run, entity, payloads, monkeypatch):
    """The records written as one batch; also how often a batch (or part of one) was written."""
    calls = []
    real = ingesting.ingest
    with transaction.atomic(), monkeypatch.context() as patch:
        patch.setattr(ingesting, "ingest", lambda *a, **k: calls.append(1) or real(*a, **k))
        problems = []
        total = ingesting.ingest_isolating_bad_records(run, entity, mapped(payloads), problems)
        outcome = state(), _summary(total, problems)
        transaction.set_rollback(True)
    return outcome, problems, len(calls)


@pytest.mark.parametrize(("entity", "payloads"), [("work", BATCH), ("arxiv", ARXIV_BATCH)])
def test_each_record_becomes_what_it_became_written_alone(seeded, monkeypatch, entity, payloads):
    alone, problems_alone = written_alone(seeded, entity, payloads, monkeypatch)
    batch, problems, writes = written_as_batch(seeded, entity, payloads, monkeypatch)

    assert batch == alone
    assert problems_alone, "the batch holds records the database refuses"
    assert writes == 1  # written once: no record was written alone
    for problem in problems:
        assert "belongs to another work (#" in problem.error
        assert problem.payload in payloads


def test_the_conflicts_of_the_batch_are_the_records_expected(seeded, monkeypatch):
    _, problems, _ = written_as_batch(seeded, "work", BATCH, monkeypatch)

    ids = {p.external_id for p in problems}
    assert ids == {f"https://openalex.org/W71{n:08d}" for n in (101, 105, 6, 3, 107, 109)}
    error = next(p.error for p in problems if p.external_id.endswith("W7100000101"))
    stored = Work.objects.get(arxiv_id="2101.00002").pk
    assert (
        error
        == f"Could not be written: its arXiv id 2101.00002 belongs to another work (#{stored})."
    )


def test_a_conflict_costs_no_more_queries_than_a_good_record(seeded):
    """The same batch with one record in ten colliding with stored works, and without."""
    clean = [oa(200 + n, doi=f"10.1000/c{n}") for n in range(40)]
    colliding = [
        oa(200 + n, doi="10.1000/s1", arxiv_id="2101.00002") if n % 10 == 3 else p
        for n, p in enumerate(clean)
    ]
    queries = {}
    for name, payloads in (("clean", clean), ("colliding", colliding)):
        with transaction.atomic(), CaptureQueriesContext(connection) as captured:
            problems = []
            ingesting.ingest_isolating_bad_records(seeded, "work", mapped(payloads), problems)
            transaction.set_rollback(True)
        assert len(problems) == (4 if name == "colliding" else 0)
        queries[name] = len(captured)

    # Reading the stored works the colliding records name may take a query more; writing
    # each record alone would take about as many per record as the whole batch takes.
    assert queries["colliding"] <= queries["clean"] + 2


def test_a_conflict_the_check_misses_fails_only_its_own_record(seeded, monkeypatch, caplog):
    """Another writer takes an identifier between the check and the write: halves are written
    again until the failing record is alone, not each record of the batch alone."""
    payloads = [oa(300 + n, doi=f"10.1000/r{n}") for n in range(32)]
    payloads[21] = oa(321, doi="10.1000/s1", arxiv_id="2101.00002")
    alone, _ = written_alone(seeded, "work", payloads, monkeypatch)
    caplog.set_level(logging.WARNING, logger="publications")

    monkeypatch.setattr(work_batches, "sort_out", lambda pending, holders: None)
    batch, problems, writes = written_as_batch(seeded, "work", payloads, monkeypatch)

    assert batch == alone
    assert [p.external_id for p in problems] == ["https://openalex.org/W7100000321"]
    assert "Could not be written" in problems[0].error
    assert writes <= 1 + 2 * 5  # two halves at each of log2(32) levels at most
    assert "writing them in halves" in caplog.text


def test_an_import_keeps_the_conflicting_records_as_problems(seeded, tmp_path, settings):
    settings.IMPORT_BATCH_SIZE = 5
    path = write_lines(tmp_path / "works.jsonl", BATCH)

    run = run_files(path)

    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.counters["problems"] == 6
    kept = {p.external_id: p for p in ImportProblem.objects.filter(last_run=run)}
    assert kept_payload(
        kept["https://openalex.org/W7100000101"].payload,
        kept["https://openalex.org/W7100000101"].raw_payload,
    ) == json.loads(json.dumps(BATCH[0]))
    assert SourceRecord.objects.filter(external_id="W7100000102").exists()

"""What makes large imports fast must not change what they write.

Batches are checked and mapped in a thread while the ones before them are written,
rows go in through COPY with ids from the sequences, lookups send arrays, and
PostgreSQL re-analyses the tables a run grows.
"""

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from catalogue.models import Author, Authorship, ImportRun, SourceRecord, Work
from ingestion.importing import pipeline, positions, tuning
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.ingest.hashing import content_hash
from ingestion.ingest.rows import any_of, array_literal
from ingestion.records import Page, SourceError

pytestmark = pytest.mark.django_db

SNAPSHOT = "openalex/snapshot/works__updated_date=2021-11-03__part_000.jsonl"
postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="a PostgreSQL feature (set DATABASE_URL)"
)


def run_files(*paths):
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


def snapshot(real_fixtures) -> list[dict]:
    return [json.loads(line) for line in (real_fixtures / SNAPSHOT).read_text().splitlines()]


def write_lines(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


# Batches between two batches holding the same record: up to LOOKAHEAD batches are
# checked against the database before the ones ahead of them are written.
GAPS = pytest.mark.parametrize("gap", range(pipeline.LOOKAHEAD + 2))


@GAPS
def test_a_record_rewritten_by_a_batch_before_is_written_again(
    real_fixtures, tmp_path, settings, gap
):
    """A batch is checked before the batches ahead of it commit; what they rewrote is checked again."""
    settings.IMPORT_BATCH_SIZE = 1
    first, *others = snapshot(real_fixtures)
    original = {**first, "title": "An original title", "display_name": "An original title"}
    changed = {**first, "title": "A changed title", "display_name": "A changed title"}
    run_files(write_lines(tmp_path / "before.jsonl", [original]))

    run = run_files(write_lines(tmp_path / "both.jsonl", [changed, *others[:gap], original]))

    record = SourceRecord.objects.get(
        external_id=Work.objects.get(title__contains="original").openalex_id
    )
    assert record.content_hash == content_hash(original)
    assert record.work.title == "An original title"
    assert run.counters["updated"] == 2
    assert run.counters["unchanged"] == 0
    assert run.counters["created"] == gap


@GAPS
def test_a_record_created_by_a_batch_before_is_not_created_twice(
    real_fixtures, tmp_path, settings, gap
):
    settings.IMPORT_BATCH_SIZE = 1
    first, *others = snapshot(real_fixtures)
    run = run_files(write_lines(tmp_path / "twice.jsonl", [first, *others[:gap], first]))

    assert run.counters == {"created": 1 + gap, "updated": 0, "unchanged": 1, "problems": 0}
    assert SourceRecord.objects.count() == 1 + gap
    assert Work.objects.count() == 1 + gap


def test_payloads_are_stored_as_given_and_a_second_run_skips_them(real_fixtures, settings):
    settings.IMPORT_BATCH_SIZE = 7
    records = snapshot(real_fixtures)
    run_files(real_fixtures / SNAPSHOT)

    stored = {r.external_id: r for r in SourceRecord.objects.all()}
    for payload in records:
        row = stored[payload["id"].rsplit("/", 1)[-1]]
        assert row.payload == payload
        assert row.content_hash == content_hash(payload)
    again = run_files(real_fixtures / SNAPSHOT)
    assert again.counters == {"created": 0, "updated": 0, "unchanged": 50, "problems": 0}


def test_new_rows_get_their_ids_and_link_up(real_fixtures, settings):
    settings.IMPORT_BATCH_SIZE = 10
    run_files(real_fixtures / SNAPSHOT)

    work = Work.objects.exclude(authorships=None).order_by("pk").first()
    authorships = list(work.authorships.order_by("position"))
    assert authorships and all(a.pk for a in authorships)
    assert Authorship.objects.filter(institutions__isnull=False).exists()
    assert SourceRecord.objects.filter(work=work).count() == 1
    if connection.vendor == "postgresql":
        from catalogue.models import WorkSearch

        assert WorkSearch.objects.get(work=work).search_vector
    assert Author.objects.filter(created_at__isnull=False).count() == Author.objects.count()


def test_a_failing_batch_stops_the_run_while_the_next_one_is_being_mapped(
    real_fixtures, settings, monkeypatch
):
    settings.IMPORT_BATCH_SIZE = 3
    real_write = pipeline.write_batch
    calls = {"n": 0}

    def fails_second(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("the database went away")
        return real_write(*args, **kwargs)

    monkeypatch.setattr(pipeline, "write_batch", fails_second)
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(real_fixtures / SNAPSHOT)]},
        queue=False,
    )
    with pytest.raises(RuntimeError, match="went away"):
        import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.processed == 3
    assert Work.objects.count() == 3


def test_batches_read_before_the_source_fails_are_written(real_fixtures, settings, monkeypatch):
    settings.IMPORT_BATCH_SIZE = 20
    records = snapshot(real_fixtures)

    def pages(run, part):
        def fetch(at):
            yield Page("work", records, next_cursor="page-2")
            raise SourceError("OpenAlex answered 503 five times")

        return fetch

    monkeypatch.setattr(positions, "pager", pages)
    run = import_run_create(
        source="openalex", kind="filter", parameters={"filter": {"x": "1"}}, queue=False
    )
    run = import_run_execute(run_id=run.pk)

    assert run.status == ImportRun.Status.FAILED
    assert Work.objects.count() == 50
    assert run.cursor == {"at": "page-2", "done": 0}


def test_a_run_cancelled_while_a_batch_is_written_keeps_only_the_batches_before(
    real_fixtures, settings, monkeypatch
):
    settings.IMPORT_BATCH_SIZE = 10
    real_write = pipeline.write_batch
    calls = {"n": 0}

    def cancelled_during_second(run, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.CANCELLED)
        return real_write(run, *args, **kwargs)

    monkeypatch.setattr(pipeline, "write_batch", cancelled_during_second)
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(real_fixtures / SNAPSHOT)]},
        queue=False,
    )
    run = import_run_execute(run_id=run.pk)

    assert run.status == ImportRun.Status.CANCELLED
    assert calls["n"] == 2
    run.refresh_from_db()
    assert (run.status, run.processed, run.counters["created"]) == ("cancelled", 10, 10)
    assert Work.objects.count() == SourceRecord.objects.count() == 10


@postgres_only
def test_a_mapping_thread_waiting_for_its_turn_is_let_go_on_the_way_out():
    waited = threading.Event()
    with ThreadPoolExecutor(1) as pool, tuning.MappingTurns() as turns:
        future = pool.submit(lambda: (waited.set(), turns.pause(), "mapped")[-1])
        waited.wait(5)
    assert future.result(timeout=5) == "mapped"


@postgres_only
def test_the_mapping_thread_runs_while_the_importer_waits_on_the_database():
    order = []
    with ThreadPoolExecutor(1) as pool, tuning.MappingTurns() as turns:
        future = pool.submit(lambda: (turns.pause(), order.append("mapped")))
        assert not future.done()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.2)")  # the turn opens while this waits
        future.result(timeout=5)
        order.append("after the query")
    assert order == ["mapped", "after the query"]


@postgres_only
def test_a_growing_table_is_analysed_during_the_run(real_fixtures, monkeypatch):
    monkeypatch.setattr(tuning, "ANALYZE_AFTER", 5)
    with connection.cursor() as cursor:
        # Statistics outlive test transactions: start from a table analysed empty.
        cursor.execute("ANALYZE publications_work")
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'publications_work'")
        assert cursor.fetchone()[0] <= 0

    run_files(real_fixtures / SNAPSHOT)

    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'publications_work'")
        assert cursor.fetchone()[0] > 0


def _reltuples(cursor, table: str) -> float:
    cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
    return cursor.fetchone()[0]


@postgres_only
def test_the_tables_search_and_trust_read_are_analysed_when_a_run_ends(real_fixtures, monkeypatch):
    """With autovacuum off or behind, a query planned on an empty table reads it all."""
    monkeypatch.setattr(tuning, "ANALYZE_AFTER", 5)
    # A work table already large: the run never doubles it, so only its end analyses.
    monkeypatch.setattr(tuning.PlannerStatistics, "_work_rows", staticmethod(lambda: 10**9))
    tables = [
        "publications_worksearch",
        "publications_worktopic",
        "publications_authorinstitution",
        "publications_authorship_institutions",
    ]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ANALYZE {table}")
            assert _reltuples(cursor, table) <= 0

    run_files(real_fixtures / SNAPSHOT)

    with connection.cursor() as cursor:
        assert all(_reltuples(cursor, table) > 0 for table in tables)


@pytest.mark.parametrize(
    "values",
    [
        ['quote " and backslash \\', "comma, {braces}", "NULL", "", "it's", "é ü"],
        [3, 1, 2],
    ],
)
def test_array_lookups_match_exactly(values):
    if isinstance(values[0], int):
        works = [Work.objects.create(title=f"Work {n}") for n in range(4)]
        wanted = [works[i].pk for i in values]
        found = Work.objects.filter(any_of("pk", wanted)).values_list("pk", flat=True)
        assert sorted(found) == sorted(wanted)
        return
    for n, title in enumerate(values):
        Work.objects.create(title=title, normalized_title=title, doi=f"10.1/{n}")
    Work.objects.create(title="Other", normalized_title="other", doi="10.1/x")
    found = Work.objects.filter(any_of("normalized_title", values))
    assert sorted(found.values_list("normalized_title", flat=True)) == sorted(values)


@postgres_only
def test_an_array_literal_round_trips_through_postgresql():
    values = ['a "quoted" word', "back\\slash", "NULL", None, "", "{x,y}", "tab\there"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::text[]", [array_literal(values)])
        assert cursor.fetchone()[0] == values

"""Citation links from OpenAlex ``referenced_works``: kept by id, resolved in either order.

Works are recorded-format OpenAlex payloads (a real recorded work with its ids,
title and references changed) written to files and imported through the real
file importer, one run per file, in batches as small as one record.
"""

from __future__ import annotations

import copy
import json
from io import StringIO

import pytest
from django.core.management import call_command

from catalogue.models import AuthorMetrics, Citation, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.sources.openalex.mapping import map_work

pytestmark = pytest.mark.django_db

RECORDED = "openalex/works__W2741809807__2025-06.json"


@pytest.fixture
def recorded(real_fixtures) -> dict:
    return json.loads((real_fixtures / RECORDED).read_text())


def make_work(recorded: dict, number: int, cites=(), **extra) -> dict:
    """A recorded work renamed to W<number>, citing W<n> for each n in ``cites``."""
    work = copy.deepcopy(recorded)
    work.update(
        id=f"https://openalex.org/W{number}",
        doi=f"https://doi.org/10.5555/cite.{number}",
        title=f"Citation test work number {number}",
        display_name=f"Citation test work number {number}",
        ids={"openalex": f"https://openalex.org/W{number}"},
        referenced_works=[f"https://openalex.org/W{n}" for n in cites],
        locations=[],
        primary_location=None,
        best_oa_location=None,
        **extra,
    )
    return work


def run_works(tmp_path, works: list[dict], name="works.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(w) for w in works) + "\n")
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


def links() -> set[tuple[str, str, str | None]]:
    """(citing W id, cited W id, cited work's W id or None when not held)."""
    return {
        (c.citing.openalex_id, c.cited_openalex_id, c.cited.openalex_id if c.cited else None)
        for c in Citation.objects.select_related("citing", "cited")
    }


def test_the_mapper_keeps_each_referenced_work_id_once(recorded):
    payload = make_work(recorded, 1, cites=[2, 3, 2])
    payload["referenced_works"] += ["not an id", None, "https://openalex.org/W1", "A123"]
    record = map_work(payload)
    assert record.referenced_works == ["W2", "W3"]
    assert "referenced_works" in record.dropped


def test_a_work_that_does_not_say_what_it_cites_has_none_listed(recorded):
    payload = make_work(recorded, 1)
    del payload["referenced_works"]
    assert map_work(payload).referenced_works is None
    payload["referenced_works"] = "W2"
    assert map_work(payload).referenced_works is None


@pytest.mark.parametrize("batch_size", [1, 1000])
def test_citing_work_first_then_cited_work_in_a_later_run(recorded, tmp_path, settings, batch_size):
    settings.IMPORT_BATCH_SIZE = batch_size
    run_works(tmp_path, [make_work(recorded, 10, cites=[11, 12])], "a.jsonl")
    assert links() == {("W10", "W11", None), ("W10", "W12", None)}
    run_works(tmp_path, [make_work(recorded, 11)], "b.jsonl")
    assert links() == {("W10", "W11", "W11"), ("W10", "W12", None)}
    cited = Work.objects.get(openalex_id="W11")
    assert list(cited.citations_received.values_list("citing__openalex_id", flat=True)) == ["W10"]


@pytest.mark.parametrize("batch_size", [1, 1000])
def test_cited_work_first_then_citing_work(recorded, tmp_path, settings, batch_size):
    settings.IMPORT_BATCH_SIZE = batch_size
    run_works(tmp_path, [make_work(recorded, 21)], "a.jsonl")
    run_works(tmp_path, [make_work(recorded, 20, cites=[21, 22])], "b.jsonl")
    assert links() == {("W20", "W21", "W21"), ("W20", "W22", None)}


@pytest.mark.parametrize("batch_size", [1, 2, 1000])
def test_works_citing_each_other_in_one_import_in_either_order(
    recorded, tmp_path, settings, batch_size
):
    settings.IMPORT_BATCH_SIZE = batch_size
    works = [
        make_work(recorded, 30, cites=[31, 32]),
        make_work(recorded, 31, cites=[32]),
        make_work(recorded, 32, cites=[30]),
    ]
    run_works(tmp_path, works, "a.jsonl")
    expected = {
        ("W30", "W31", "W31"),
        ("W30", "W32", "W32"),
        ("W31", "W32", "W32"),
        ("W32", "W30", "W30"),
    }
    assert links() == expected
    Citation.objects.all().delete()
    Work.objects.all().delete()
    run_works(tmp_path, list(reversed(works)), "b.jsonl")
    assert links() == expected


def test_a_reference_dropped_at_the_source_is_dropped_here(recorded, tmp_path):
    run_works(tmp_path, [make_work(recorded, 40, cites=[41, 42, 43]), make_work(recorded, 41)])
    assert len(links()) == 3
    changed = make_work(recorded, 40, cites=[42, 44])
    run_works(tmp_path, [changed], "again.jsonl")
    assert links() == {("W40", "W42", None), ("W40", "W44", None)}
    emptied = make_work(recorded, 40, cites=[])
    run_works(tmp_path, [emptied], "emptied.jsonl")
    assert links() == set()


def test_a_record_without_a_reference_list_keeps_its_links(recorded, tmp_path):
    run_works(tmp_path, [make_work(recorded, 50, cites=[51])])
    silent = make_work(recorded, 50, cites=[])
    del silent["referenced_works"]
    silent["title"] = "Citation test work number 50, revised"
    run_works(tmp_path, [silent], "again.jsonl")
    assert links() == {("W50", "W51", None)}


def test_linked_at_marks_when_both_ends_are_held(recorded, tmp_path):
    run_works(tmp_path, [make_work(recorded, 60, cites=[61])])
    assert Citation.objects.get().linked_at is None
    run_works(tmp_path, [make_work(recorded, 61)], "b.jsonl")
    first = Citation.objects.get().linked_at
    assert first is not None
    run_works(tmp_path, [make_work(recorded, 61, cites=[60])], "c.jsonl")
    assert Citation.objects.get(cited_openalex_id="W61").linked_at == first


def test_site_citations_are_counted_on_the_cited_authors_metrics(recorded, tmp_path):
    run_works(tmp_path, [make_work(recorded, 71)])
    run_works(tmp_path, [make_work(recorded, 70, cites=[71]), make_work(recorded, 72, cites=[71])])
    cited = Work.objects.get(openalex_id="W71")
    author_ids = set(cited.authorships.values_list("author_id", flat=True))
    assert author_ids
    # Every work here shares the recorded authors: each has W71 cited twice, by W70 and W72.
    for metrics in AuthorMetrics.objects.filter(author_id__in=author_ids):
        assert metrics.site_citations == 2


def test_backfill_writes_the_links_of_records_stored_before_links_were_kept(recorded, tmp_path):
    run_works(tmp_path, [make_work(recorded, 80, cites=[81, 82]), make_work(recorded, 81)])
    expected = links()
    assert expected == {("W80", "W81", "W81"), ("W80", "W82", None)}
    Citation.objects.all().delete()
    AuthorMetrics.objects.update(site_citations=0)
    out = StringIO()
    call_command("backfill_citations", "--batch", "1", stdout=out)
    assert links() == expected
    assert "2 OpenAlex records read; 1 works gained or lost citations" in out.getvalue()
    cited = Work.objects.get(openalex_id="W81")
    author_id = cited.authorships.values_list("author_id", flat=True).first()
    assert AuthorMetrics.objects.get(author_id=author_id).site_citations == 1
    call_command("backfill_citations", stdout=StringIO())
    assert links() == expected

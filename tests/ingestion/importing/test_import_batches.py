"""Writing batches: records of one work in one batch, title matches two parts missed,
and a batch that deadlocks with another writer."""

import json
import logging

import pytest
from django.db import DatabaseError
from django.utils import timezone

from catalogue.models import (
    ImportRun,
    MergeCandidate,
    SourceRecord,
    Work,
)
from devtools.corpus import generate_works
from ingestion.importing import ingesting
from tests.ingestion.importing.import_files import SNAPSHOT, run_files, write_lines

# Title matches between parts ----------------------------------------------------


@pytest.mark.django_db
def test_title_matches_two_parts_missed_are_raised_once_afterwards():

    from catalogue.models import LinkConstraint
    from ingestion.ingest.title_matches import raise_title_candidates_between_parts
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
    assert "in halves" not in caplog.text  # no record had to be written alone


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
    assert "in halves" not in caplog.text


@pytest.mark.django_db(transaction=True)  # the follow-up runs once the batch commits
def test_a_follow_up_that_loses_a_deadlock_is_done_again_and_the_batch_is_written_once(
    tmp_path, settings, monkeypatch, caplog
):
    settings.IMPORT_BATCH_SIZE = 20
    path = write_lines(tmp_path / "works.jsonl", generate_works(50, seed=5))
    real_announce = ingesting.authors_changed_announce
    calls = []

    def deadlocks_once_committed(author_ids, work_ids):
        calls.append(author_ids)
        if len(calls) == 2:  # the second batch has committed; its follow-up loses
            raise DatabaseError("deadlock detected") from Deadlock()
        real_announce(author_ids, work_ids)

    monkeypatch.setattr(ingesting, "authors_changed_announce", deadlocks_once_committed)
    caplog.set_level(logging.WARNING, logger="publications")
    run = run_files(path)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.processed == 50
    assert run.counters["unchanged"] == 0  # no batch was read and written a second time
    assert run.counters["created"] + run.counters["updated"] == 50
    assert len(calls) == 4  # three batches, the second one's follow-up done twice
    assert calls[1] == calls[2]
    assert "follow-up met another writer's locks" in caplog.text


@pytest.mark.django_db
def test_an_error_that_is_not_a_deadlock_is_not_retried(real_fixtures, settings, monkeypatch):
    settings.IMPORT_BATCH_SIZE = 20
    calls = {"n": 0}

    def fails(*args, **kwargs):
        calls["n"] += 1
        raise DatabaseError("disk full")

    monkeypatch.setattr(ingesting, "ingest", fails)
    run = run_files(real_fixtures / SNAPSHOT)
    # Each batch is then written in halves until each record is alone and quarantined:
    # nothing is lost, and nothing is written again whole as after a deadlock.
    assert run.counters["problems"] == 50
    assert calls["n"] == sum(2 * size - 1 for size in (20, 20, 10))

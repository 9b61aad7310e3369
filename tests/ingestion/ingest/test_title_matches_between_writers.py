"""Two writers at once (the parts of a run, or two runs) merge works of one title as one writer does.

A new work is matched by title against committed works only. A journal article
and its preprint written by two processes at the same moment each missed the
other's uncommitted work, so a run in parts could keep two works where a run in
one process keeps one. The second writer now waits for the first to commit.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from catalogue.models import SourceRecord, Work
from ingestion.ingest.works import ingest_works
from ingestion.sources.openalex.mapping import map_work
from tests.profiles.test_ownership import work_payload

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="two writers at once need a shared database (DATABASE_URL: PostgreSQL)",
    ),
]

TITLE = "Coupled fentor structures for velcullo signals"
AUTHORS = [("A5000000011", "Ada Feneph"), ("A5000000012", "Charles Babbage")]
WAIT = 10  # seconds; far more than either write takes


def _write(payload: dict, written: threading.Event, go: threading.Event | None, errors: list):
    """One writer: the record in one transaction, held open until ``go`` (when given)."""
    try:
        with transaction.atomic():
            ingest_works([(payload, map_work(payload))])
            written.set()
            if go is not None and not go.wait(WAIT):
                raise TimeoutError("the test did not let the first writer commit")
    except BaseException as exc:  # reported to the test's thread
        errors.append(exc)
        written.set()
    finally:
        connections.close_all()


def _start(*args) -> threading.Thread:
    thread = threading.Thread(target=_write, args=args, daemon=True)
    thread.start()
    return thread


def test_a_preprint_written_while_its_article_is_uncommitted_merges_into_it():
    article = work_payload("W8100000001", "10.5555/article", TITLE, AUTHORS)
    preprint = work_payload("W8100000002", "10.48550/arxiv.2310.90014", TITLE, AUTHORS)
    errors: list = []
    first_written, second_written, go = threading.Event(), threading.Event(), threading.Event()

    first = _start(article, first_written, go, errors)
    assert first_written.wait(WAIT) and not errors, errors
    second = _start(preprint, second_written, None, errors)
    # The second writer waits for the first, whose work of the same title is not committed.
    assert not second_written.wait(1.0), errors or "the second writer did not wait"
    go.set()
    first.join(WAIT)
    second.join(WAIT)

    assert not errors, errors
    assert not first.is_alive() and not second.is_alive()
    (work,) = Work.objects.all()  # one work, as one writer writes these two records
    assert set(SourceRecord.objects.values_list("external_id", "work")) == {
        ("W8100000001", work.pk),
        ("W8100000002", work.pk),
    }
    assert work.doi == "10.5555/article"  # a journal DOI is never replaced by an arXiv one


def test_writers_of_different_titles_do_not_wait_for_each_other():
    one = work_payload("W8100000003", "10.5555/one", "Scalable hiveph fields", AUTHORS)
    others = [("A5000000021", "Grace Hopper")]  # no shared rows to wait on but a title's
    other = work_payload("W8100000004", "10.5555/other", "Sparse kabri models", others)
    errors: list = []
    first_written, second_written, go = threading.Event(), threading.Event(), threading.Event()

    first = _start(one, first_written, go, errors)
    assert first_written.wait(WAIT) and not errors, errors
    second = _start(other, second_written, None, errors)
    try:
        assert second_written.wait(WAIT) or errors, "the second writer waited for the first"
    finally:
        go.set()
        first.join(WAIT)
        second.join(WAIT)
    assert not errors, errors
    assert Work.objects.count() == 2

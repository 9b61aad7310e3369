"""The author-figures task, which runs beside import batches on a worker."""

import pytest
from django.db import DatabaseError

from catalogue import metrics, tasks
from catalogue.models import AuthorMetrics
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory


class Deadlock(Exception):
    sqlstate = "40P01"


@pytest.mark.django_db
def test_a_chunk_that_loses_a_deadlock_is_recomputed(monkeypatch):
    authors = [AuthorFactory() for _ in range(3)]
    for author in authors:
        AuthorshipFactory(author=author, work=WorkFactory(cited_by_count=4))
    monkeypatch.setattr(tasks, "METRICS_CHUNK", 2)
    real = metrics.author_metrics_refresh
    calls = []

    def loses_once(*, author_ids):
        calls.append(list(author_ids))
        if len(calls) == 1:
            raise DatabaseError("deadlock detected") from Deadlock()
        return real(author_ids=author_ids)

    monkeypatch.setattr(metrics, "author_metrics_refresh", loses_once)

    ids = sorted(a.pk for a in authors)
    assert tasks.refresh_author_metrics(ids) == 3
    assert calls == [ids[:2], ids[:2], ids[2:]]
    assert AuthorMetrics.objects.filter(author_id__in=ids, citations=4).count() == 3


@pytest.mark.django_db
def test_any_other_error_is_raised(monkeypatch):
    def fails(*, author_ids):
        raise DatabaseError("disk full")

    monkeypatch.setattr(metrics, "author_metrics_refresh", fails)
    with pytest.raises(DatabaseError, match="disk full"):
        tasks.refresh_author_metrics([1])

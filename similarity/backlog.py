"""What the next similarity run is to bring up to date, as imports and curation ask.

Requests are rows (``SimilarityRequest``), not task arguments, so one run takes
every request made before it started. Each run reads the whole corpus
(``similarity``); a large import asks once per batch, and with
requests in task arguments each batch paid for a run of its own. A run removes
the requests it took only once their matches are written: a run that fails
leaves them to the next (the next batch's, or the weekly full build, which
clears every request made before it read the corpus).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from catalogue.models import SimilarityRequest


@dataclass
class Taken:
    """The requests one run took: everything up to ``last`` (a primary key)."""

    last: int
    work_ids: set[int] = field(default_factory=set)
    author_ids: set[int] = field(default_factory=set)


def backlog_ask(*, work_ids: Iterable[int] = (), author_ids: Iterable[int] = ()) -> None:
    """Ask the next run to bring these works and these authors' works up to date."""
    works, authors = sorted({int(i) for i in work_ids}), sorted({int(i) for i in author_ids})
    if works or authors:
        SimilarityRequest.objects.create(work_ids=works, author_ids=authors)


def backlog_take() -> Taken | None:
    """Every request made so far (None when there is none); removed by ``backlog_done``."""
    rows = SimilarityRequest.objects.order_by("pk").values_list("pk", "work_ids", "author_ids")
    taken = None
    for pk, work_ids, author_ids in rows.iterator(chunk_size=1000):
        taken = taken or Taken(last=pk)
        taken.last = pk
        taken.work_ids.update(work_ids)
        taken.author_ids.update(author_ids)
    return taken


def backlog_done(taken: Taken) -> None:
    SimilarityRequest.objects.filter(pk__lte=taken.last).delete()


def backlog_covered(started: float) -> None:
    """A full build that started at ``started`` read every change asked for before it."""
    SimilarityRequest.objects.filter(asked_at__lt=datetime.fromtimestamp(started, UTC)).delete()

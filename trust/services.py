"""Writing trust scores: recompute authors, keep a history row for every change."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from publications.models import Author, Authorship
from trust import scoring, selectors
from trust.models import TrustScore, TrustScoreHistory

CHUNK = 1000  # authors read, scored and written together
SCORE_FIELDS = ["score", "tier", "level", "claim_status", "components", "computed_at"]
FIRST_SCORE_DEBOUNCE = 600  # seconds between two requests to score an unscored author


@dataclass
class Recomputed:
    computed: int = 0  # authors scored
    changed: int = 0  # of which score, tier or level changed (a history row was written)

    def __iadd__(self, other: Recomputed) -> Recomputed:
        self.computed += other.computed
        self.changed += other.changed
        return self


def _chunk(author_ids: list[int], reason: str, now: datetime) -> Recomputed:
    signals = selectors.signals_for_authors(author_ids, now=now)
    results = {pk: scoring.score(s) for pk, s in signals.items()}
    if not results:
        return Recomputed()
    rows = [
        TrustScore(
            author_id=pk,
            score=r.score,
            tier=r.tier,
            level=r.level,
            claim_status=r.claim_status,
            components=r.components_json(),
            computed_at=now,
        )
        for pk, r in results.items()
    ]
    with transaction.atomic():
        before = {
            author_id: (score, tier, level)
            for author_id, score, tier, level in TrustScore.objects.select_for_update()
            .filter(author_id__in=results)
            .values_list("author_id", "score", "tier", "level")
        }
        TrustScore.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["author"], update_fields=SCORE_FIELDS
        )
        changes = [
            TrustScoreHistory(
                author_id=row.author_id,
                score=row.score,
                tier=row.tier,
                level=row.level,
                components=row.components,
                reason=reason[:200],
                computed_at=now,
            )
            for row in rows
            if before.get(row.author_id) != (row.score, row.tier, row.level)
        ]
        TrustScoreHistory.objects.bulk_create(changes)
    return Recomputed(len(rows), len(changes))


def trust_scores_recompute(
    *, author_ids: Iterable[int], reason: str = "", now: datetime | None = None
) -> Recomputed:
    """Score the given authors again; a history row is kept where score, tier or level changed.

    Authors merged into another record or deleted are left alone.
    """
    now = now or timezone.now()
    ids = sorted(set(author_ids))
    summary = Recomputed()
    for start in range(0, len(ids), CHUNK):
        summary += _chunk(ids[start : start + CHUNK], reason, now)
    return summary


def _visible_author_chunks(size: int) -> Iterator[list[int]]:
    """Ids of every visible author, a chunk at a time, without holding them all."""
    last = 0
    while True:
        ids = list(
            Author.objects.visible()
            .filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", flat=True)[:size]
        )
        if not ids:
            return
        yield ids
        last = ids[-1]


def trust_scores_recompute_all(
    *, reason: str = "nightly recompute", now: datetime | None = None, chunk: int = CHUNK
) -> Recomputed:
    """Score every visible author, chunk by chunk; memory stays the same for any number."""
    now = now or timezone.now()
    summary = Recomputed()
    for ids in _visible_author_chunks(chunk):
        summary += _chunk(ids, reason, now)
    return summary


def coauthor_ids(author_id: int) -> list[int]:
    """Everyone who shares a work with the author: their "claimed collaborators" may change."""
    return list(
        Authorship.objects.filter(
            work__authorships__author_id=author_id, work__merged_into__isnull=True
        )
        .exclude(author_id=author_id)
        .order_by()
        .values_list("author_id", flat=True)
        .distinct()
    )


def trust_score_request(*, author_id: int) -> bool:
    """Ask a worker to score an author that has no score yet; True when a task was queued.

    Pages call this while rendering, so it never computes in the request: with no
    worker (tasks inline) it does nothing, as imports and claims score authors
    as they happen there. Repeated views queue one task per ten minutes.
    """
    from trust import tasks

    if tasks.recompute_authors.app.conf.task_always_eager:
        return False
    if not cache.add(f"trust:first-score:{author_id}", 1, timeout=FIRST_SCORE_DEBOUNCE):
        return False
    tasks.recompute_authors.delay([author_id], "first view of an unscored record")
    return True

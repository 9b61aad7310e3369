"""Writing trust scores: recompute authors, keep a history row for every change."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

import orjson
from django.db import connection, transaction
from django.utils import timezone

from catalogue.models import Author, Authorship
from trust import scoring, selectors
from trust.models import TrustScore, TrustScoreHistory
from trust.signals import trust_scored

CHUNK = 1000  # authors read, scored and written together
SCORE_FIELDS = ["score", "tier", "level", "claim_status", "components", "digest", "computed_at"]


@dataclass
class Recomputed:
    computed: int = 0  # authors scored
    changed: int = 0  # of which score, tier or level changed (a history row was written)

    def __iadd__(self, other: Recomputed) -> Recomputed:
        self.computed += other.computed
        self.changed += other.changed
        return self


@dataclass(slots=True)
class _Row:
    author_id: int
    score: int
    tier: str
    level: int
    claim_status: str
    components: list[dict]
    digest: str

    def json(self) -> dict:
        return {
            "author_id": self.author_id,
            "score": self.score,
            "tier": self.tier,
            "level": self.level,
            "claim_status": self.claim_status,
            "components": self.components,
            "digest": self.digest,
        }


def _row(author_id: int, result: scoring.Result) -> _Row:
    components = result.components_json()
    shown = orjson.dumps([result.score, result.tier, result.level, result.claim_status, components])
    digest = hashlib.md5(shown, usedforsecurity=False).hexdigest()
    return _Row(
        author_id, result.score, result.tier, result.level, result.claim_status, components, digest
    )


def _chunk(author_ids: list[int], reason: str, now: datetime) -> Recomputed:
    signals = selectors.signals_for_authors(author_ids, now=now)
    gone = set(author_ids) - set(signals)
    if gone:
        # Merged away or deleted: their pages redirect or vanish, and so does the score.
        TrustScore.objects.filter(author_id__in=gone).delete()
    rows = [_row(pk, scoring.score(s)) for pk, s in signals.items()]
    if not rows:
        return Recomputed()
    with transaction.atomic():
        before = {
            author_id: ((score, tier, level), digest)
            for author_id, score, tier, level, digest in TrustScore.objects.select_for_update()
            .filter(author_id__in=signals)
            .values_list("author_id", "score", "tier", "level", "digest")
        }
        unchanged = [
            r.author_id for r in rows if before.get(r.author_id, (None, ""))[1] == r.digest
        ]
        if unchanged:
            TrustScore.objects.filter(author_id__in=unchanged).update(computed_at=now)
        written = [r for r in rows if before.get(r.author_id, (None, ""))[1] != r.digest]
        changed = [
            r
            for r in written
            if before.get(r.author_id, (None, ""))[0] != (r.score, r.tier, r.level)
        ]
        _write_scores(written, now)
        _write_history(changed, reason[:200], now)
    return Recomputed(len(rows), len(changed))


# PostgreSQL takes a whole chunk as one JSON document: building it with orjson and
# letting the server split it is several times faster than binding every value.
SCORES_SQL = """
INSERT INTO {table} (author_id, score, tier, level, claim_status, components, digest, computed_at)
SELECT r.author_id, r.score, r.tier, r.level, r.claim_status, r.components, r.digest, %s
FROM jsonb_to_recordset(%s::jsonb) AS r(author_id integer, score smallint, tier text,
     level smallint, claim_status text, components jsonb, digest text)
ON CONFLICT (author_id) DO UPDATE SET score = EXCLUDED.score, tier = EXCLUDED.tier,
    level = EXCLUDED.level, claim_status = EXCLUDED.claim_status,
    components = EXCLUDED.components, digest = EXCLUDED.digest,
    computed_at = EXCLUDED.computed_at
"""
HISTORY_SQL = """
INSERT INTO {table} (author_id, score, tier, level, components, reason, computed_at)
SELECT r.author_id, r.score, r.tier, r.level, r.components, %s, %s
FROM jsonb_to_recordset(%s::jsonb) AS r(author_id integer, score smallint, tier text,
     level smallint, components jsonb)
"""


def _on_postgresql() -> bool:
    return connection.vendor == "postgresql"


def _write_scores(rows: list[_Row], now: datetime) -> None:
    if not rows:
        return
    if _on_postgresql():
        payload = orjson.dumps([r.json() for r in rows]).decode()
        with connection.cursor() as cursor:
            cursor.execute(SCORES_SQL.format(table=TrustScore._meta.db_table), [now, payload])
    else:
        TrustScore.objects.bulk_create(
            [TrustScore(**r.json(), computed_at=now) for r in rows],
            update_conflicts=True,
            unique_fields=["author"],
            update_fields=SCORE_FIELDS,
        )
    trust_scored.send(sender=TrustScore, author_ids=[r.author_id for r in rows])


def _write_history(rows: list[_Row], reason: str, now: datetime) -> None:
    if not rows:
        return
    if _on_postgresql():
        payload = orjson.dumps([r.json() for r in rows]).decode()
        table = TrustScoreHistory._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(HISTORY_SQL.format(table=table), [reason, now, payload])
        return
    TrustScoreHistory.objects.bulk_create(
        TrustScoreHistory(
            author_id=r.author_id,
            score=r.score,
            tier=r.tier,
            level=r.level,
            components=r.components,
            reason=reason,
            computed_at=now,
        )
        for r in rows
    )


def trust_scores_recompute(
    *, author_ids: Iterable[int], reason: str = "", now: datetime | None = None
) -> Recomputed:
    """Score the given authors again; a history row is kept where score, tier or level changed.

    Authors merged into another record or deleted lose their stored score.
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
        Authorship.objects.of_visible_works()
        .filter(work__authorships__author_id=author_id)
        .exclude(author_id=author_id)
        .order_by()
        .values_list("author_id", flat=True)
        .distinct()
    )

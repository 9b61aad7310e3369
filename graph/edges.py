"""Co-authorship edges: one row per pair of visible authors who share a visible work.

``edges_refresh`` recounts only the pairs that involve the given authors (what an
import batch touched); ``edges_rebuild`` recounts everything. Both are single
set-based statements, so neither holds the graph in memory, and both give the
same rows for the same data (tests compare them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import connection, transaction

from graph.models import CoauthorEdge

logger = logging.getLogger("graph")

# Touched authors handled per statement (keeps parameter lists short on SQLite).
CHUNK = 500

_PAIRS = """
    SELECT
        CASE WHEN a1.author_id < a2.author_id THEN a1.author_id ELSE a2.author_id END,
        CASE WHEN a1.author_id < a2.author_id THEN a2.author_id ELSE a1.author_id END,
        COUNT(DISTINCT a1.work_id),
        MIN(w.publication_year),
        MAX(w.publication_year),
        {now}
    FROM publications_authorship a1
    JOIN publications_authorship a2
      ON a2.work_id = a1.work_id AND a2.author_id <> a1.author_id
    JOIN publications_work w ON w.id = a1.work_id AND w.merged_into_id IS NULL
    JOIN publications_author p1
      ON p1.id = a1.author_id AND p1.merged_into_id IS NULL AND NOT p1.is_deleted
    JOIN publications_author p2
      ON p2.id = a2.author_id AND p2.merged_into_id IS NULL AND NOT p2.is_deleted
    WHERE {where}
    GROUP BY 1, 2
"""

_INSERT = (
    "INSERT INTO graph_coauthoredge "
    "(author_low_id, author_high_id, joint_works, first_year, last_year, updated_at) "
)


def _now_sql() -> str:
    return "CURRENT_TIMESTAMP"


def edges_refresh(author_ids: Iterable[int]) -> int:
    """Recount every pair that involves one of ``author_ids``; return the rows written."""
    ids = sorted({int(a) for a in author_ids})
    written = 0
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        marks = ", ".join(["%s"] * len(chunk))
        with transaction.atomic(), connection.cursor() as cursor:
            delete = "DELETE FROM graph_coauthoredge WHERE author_low_id IN ({0}) OR {1} IN ({0})"
            cursor.execute(delete.format(marks, "author_high_id"), chunk + chunk)
            # Pairs are counted once: from the touched side when only one side is
            # touched, from the lower id when both are.
            where = (
                f"a1.author_id IN ({marks}) AND "
                f"(a2.author_id NOT IN ({marks}) OR a1.author_id < a2.author_id)"
            )
            cursor.execute(_INSERT + _PAIRS.format(now=_now_sql(), where=where), chunk + chunk)
            written += max(cursor.rowcount, 0)
    return written


def edges_rebuild() -> int:
    """Recount every pair from scratch; return the number of edges."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM graph_coauthoredge")
        cursor.execute(_INSERT + _PAIRS.format(now=_now_sql(), where="a1.author_id < a2.author_id"))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE graph_coauthoredge")
    count = CoauthorEdge.objects.count()
    logger.info("graph: rebuilt %s co-author edges", count)
    return count

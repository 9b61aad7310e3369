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
# Up to this many touched authors, every pair involving them is recounted.
FULL_RECOUNT_UP_TO = 50
SQLITE_SET_LIMIT = 10_000

_PAIRS = """
    SELECT
        CASE WHEN a1.author_id < a2.author_id THEN a1.author_id ELSE a2.author_id END,
        CASE WHEN a1.author_id < a2.author_id THEN a2.author_id ELSE a1.author_id END,
        COUNT(*),
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


_DELETE_AMONG = (
    "DELETE FROM graph_coauthoredge WHERE author_low_id {inside} AND author_high_id {inside}"
)
_DELETE_GONE = """
    DELETE FROM graph_coauthoredge
    WHERE author_low_id IN (
        SELECT id FROM publications_author
        WHERE id {inside} AND (merged_into_id IS NOT NULL OR is_deleted))
    OR author_high_id IN (
        SELECT id FROM publications_author
        WHERE id {inside} AND (merged_into_id IS NOT NULL OR is_deleted))
"""


def _now_sql() -> str:
    return "CURRENT_TIMESTAMP"


def edges_refresh(author_ids: Iterable[int]) -> int:
    """Recount the edges the change to ``author_ids`` can have touched; return rows written.

    A few authors (a curation decision, a "not mine"): every pair involving them is
    recounted. Many authors (an import batch, which names every author of every
    work it changed, before and after): a pair can only have changed if both its
    authors wrote one of those works, so only pairs *among* them are recounted,
    and authors no longer visible lose all their edges.
    """
    ids = sorted({int(a) for a in author_ids})
    if len(ids) <= FULL_RECOUNT_UP_TO or (
        connection.vendor != "postgresql" and len(ids) > SQLITE_SET_LIMIT
    ):
        return _refresh_every_pair(ids)
    return _refresh_pairs_among(ids)


def _refresh_every_pair(ids: list[int]) -> int:
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


_AMONG_POSTGRES = """
    SELECT a1.author_id, a2.author_id, COUNT(*), MIN(w.publication_year),
           MAX(w.publication_year), CURRENT_TIMESTAMP
    FROM publications_authorship a1
    JOIN publications_authorship a2
      ON a2.work_id = a1.work_id AND a1.author_id < a2.author_id
    JOIN publications_work w ON w.id = a1.work_id AND w.merged_into_id IS NULL
    WHERE a1.author_id = ANY(%s::bigint[]) AND a2.author_id = ANY(%s::bigint[])
    GROUP BY a1.author_id, a2.author_id
"""


def _refresh_pairs_among(ids: list[int]) -> int:
    if connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL work_mem = '64MB'")
            cursor.execute(_DELETE_AMONG.format(inside="= ANY(%s::bigint[])"), [ids, ids])
            cursor.execute(
                "SELECT array_agg(id) FROM publications_author WHERE id = ANY(%s::bigint[]) "
                "AND merged_into_id IS NULL AND NOT is_deleted",
                [ids],
            )
            visible = cursor.fetchone()[0] or []
            cursor.execute(_INSERT + _AMONG_POSTGRES, [visible, visible])
            written = max(cursor.rowcount, 0)
            cursor.execute(_DELETE_GONE.format(inside="= ANY(%s::bigint[])"), [ids, ids])
        return written
    if connection.vendor == "postgresql":
        inside, params = "= ANY(%s::bigint[])", [ids]
    else:
        inside, params = "IN ({})".format(", ".join(["%s"] * len(ids))), ids
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_DELETE_AMONG.format(inside=inside), params * 2)
        where = f"a1.author_id {inside} AND a2.author_id {inside} AND a1.author_id < a2.author_id"
        cursor.execute(_INSERT + _PAIRS.format(now=_now_sql(), where=where), params * 2)
        written = max(cursor.rowcount, 0)
        cursor.execute(_DELETE_GONE.format(inside=inside), params * 2)
    return written


def edges_rebuild() -> int:
    """Recount every pair from scratch; return the number of edges."""
    if connection.vendor == "postgresql":
        # Fresh statistics first: a plan built on stale ones can loop for hours.
        with connection.cursor() as cursor:
            cursor.execute(
                "ANALYZE publications_author, publications_authorship, publications_work"
            )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM graph_coauthoredge")
        cursor.execute(_INSERT + _PAIRS.format(now=_now_sql(), where="a1.author_id < a2.author_id"))
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE graph_coauthoredge")
    count = CoauthorEdge.objects.count()
    logger.info("graph: rebuilt %s co-author edges", count)
    return count

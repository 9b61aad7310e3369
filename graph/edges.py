"""Co-authorship edges: one row per pair of visible authors who share a visible work.

The edges are counted from ``CountedAuthorship``: the visible authorships as they
stood when last counted. ``edges_refresh`` takes the works a change can have
touched and compares their counted rows with their authorships now:

- a pair a work gained gets one more joint work (an upsert, nothing recounted);
- a pair a work lost, or kept under another year, is recounted from the counted
  rows (only those pairs);

then the works' counted rows are replaced. So an import batch of new works costs
what its own pairs cost, however prolific their authors are. ``edges_rebuild``
copies every authorship and counts every pair. Both are set-based statements that
never hold the graph in memory, and they give the same rows for the same data
(the tests compare them). Writers take one lock (on PostgreSQL an advisory lock),
so two updates never count the same change twice.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import connection, transaction

from graph.models import CoauthorEdge

logger = logging.getLogger("graph")

# pg_advisory_xact_lock key of the edge writers ("grap").
LOCK_KEY = 0x67726170

_TEMP_TABLES = {
    "graph_tmp_authors": "author_id bigint PRIMARY KEY",
    "graph_tmp_works": "work_id bigint PRIMARY KEY",
    "graph_tmp_new": "work_id bigint, author_id bigint, year integer, "
    "PRIMARY KEY (work_id, author_id)",
    "graph_tmp_recount": "lo bigint, hi bigint, PRIMARY KEY (lo, hi)",
}

# A work with more authors than this (a large collaboration's byline of hundreds or
# thousands of names) makes no edges: it says nothing about who worked with whom,
# and its pairs grow with the square of its byline (4.5 million for 3,000 names).
MAX_BYLINE = 100

# Visible authorships (of a visible work by a visible author), with the work's year:
# what the edges are counted from. The byline is measured by looking one authorship
# past the limit, never by counting a long one whole.
_VISIBLE_AUTHORSHIPS = f"""
    SELECT a.work_id, a.author_id, w.publication_year
    FROM publications_authorship a
    JOIN publications_work w ON w.id = a.work_id AND w.merged_into_id IS NULL
    JOIN publications_author p
      ON p.id = a.author_id AND p.merged_into_id IS NULL AND NOT p.is_deleted
    WHERE NOT EXISTS (
        SELECT 1 FROM publications_authorship n WHERE n.work_id = a.work_id
        LIMIT 1 OFFSET {MAX_BYLINE}
    )
"""  # noqa: S608 - a constant of this module

# Those of the works in question, as they are now.
_CURRENT = (
    "INSERT INTO graph_tmp_new (work_id, author_id, year)"  # noqa: S608 - fixed SQL
    + _VISIBLE_AUTHORSHIPS
    + "AND a.work_id IN (SELECT work_id FROM graph_tmp_works)"
)


def _pairs_missing_from(table: str, other: str) -> str:
    """Joins pairs ``x1``/``x2`` of ``table`` (x1 the lower id) of one work, keeping those
    that ``other`` does not hold for that work under the same year."""
    return f"""
    JOIN {table} x2 ON x2.work_id = x1.work_id AND x2.author_id > x1.author_id
    WHERE NOT EXISTS (
        SELECT 1 FROM {other} y1
        JOIN {other} y2 ON y2.work_id = y1.work_id
        WHERE y1.work_id = x1.work_id AND y1.author_id = x1.author_id
          AND y2.author_id = x2.author_id AND COALESCE(y1.year, -1) = COALESCE(x1.year, -1)
    )"""  # noqa: S608 - table names fixed in this module


# Pairs one of the works counted before and no longer has under the same year.
_LOST = (
    "INSERT INTO graph_tmp_recount (lo, hi) SELECT DISTINCT x1.author_id, x2.author_id "
    "FROM graph_tmp_works t JOIN graph_countedauthorship x1 ON x1.work_id = t.work_id"
    + _pairs_missing_from("graph_countedauthorship", "graph_tmp_new")
)

_INSERT = (
    "INSERT INTO graph_coauthoredge "
    "(author_low_id, author_high_id, joint_works, first_year, last_year, updated_at) "
)


def _earliest(column: str, pick: str) -> str:
    """The earlier (``pick='<'``) or later (``'>'``) of the stored and the new year."""
    stored, new = f"graph_coauthoredge.{column}", f"excluded.{column}"
    return (
        f"{column} = CASE WHEN {new} IS NULL THEN {stored} "
        f"WHEN {stored} IS NULL OR {new} {pick} {stored} THEN {new} ELSE {stored} END"
    )


# Pairs the works gained (not counted before under the same year), added to the
# stored counts; pairs being recounted are left to the recount.
_GAINED = (
    _INSERT  # noqa: S608 - fixed SQL, no values in it
    + """
    SELECT x1.author_id, x2.author_id, COUNT(*), MIN(x1.year), MAX(x1.year), CURRENT_TIMESTAMP
    FROM graph_tmp_new x1"""
    + _pairs_missing_from("graph_tmp_new", "graph_countedauthorship")
    + """
    AND NOT EXISTS (
        SELECT 1 FROM graph_tmp_recount r WHERE r.lo = x1.author_id AND r.hi = x2.author_id
    )
    GROUP BY x1.author_id, x2.author_id
    ON CONFLICT (author_low_id, author_high_id) DO UPDATE SET
        joint_works = graph_coauthoredge.joint_works + excluded.joint_works,
    """
    + _earliest("first_year", "<")
    + ",\n"
    + _earliest("last_year", ">")
    + ",\n        updated_at = excluded.updated_at"
)

_REPLACE_COUNTED = (
    "DELETE FROM graph_countedauthorship WHERE work_id IN (SELECT work_id FROM graph_tmp_works)",
    "INSERT INTO graph_countedauthorship (work_id, author_id, year) "
    "SELECT work_id, author_id, year FROM graph_tmp_new",
)

_RECOUNT = (
    "DELETE FROM graph_coauthoredge WHERE (author_low_id, author_high_id) IN "
    "(SELECT lo, hi FROM graph_tmp_recount)",
    _INSERT  # noqa: S608 - fixed SQL, no values in it
    + """
    SELECT r.lo, r.hi, COUNT(*), MIN(c1.year), MAX(c1.year), CURRENT_TIMESTAMP
    FROM graph_tmp_recount r
    JOIN graph_countedauthorship c1 ON c1.author_id = r.lo
    JOIN graph_countedauthorship c2 ON c2.work_id = c1.work_id AND c2.author_id = r.hi
    GROUP BY r.lo, r.hi
    """,
)

# Every work an author has now or had when last counted.
_WORKS_OF_AUTHORS = """
    INSERT INTO graph_tmp_works (work_id)
    SELECT c.work_id FROM graph_countedauthorship c
    JOIN graph_tmp_authors t ON t.author_id = c.author_id
    UNION
    SELECT a.work_id FROM publications_authorship a
    JOIN graph_tmp_authors t ON t.author_id = a.author_id
"""


def _lock(cursor) -> None:
    if connection.vendor == "postgresql":
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def _temp_tables(cursor) -> None:
    """Create (once per connection) and empty the scratch tables of an update."""
    on_commit = " ON COMMIT DELETE ROWS" if connection.vendor == "postgresql" else ""
    for name, columns in _TEMP_TABLES.items():
        cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({columns}){on_commit}")
        cursor.execute(f"DELETE FROM {name}")  # noqa: S608 - names from _TEMP_TABLES


def _fill(cursor, table: str, column: str, ids: list[int]) -> None:
    insert = f"INSERT INTO {table} ({column})"  # names fixed in this module
    if connection.vendor == "postgresql":
        cursor.execute(f"{insert} SELECT unnest(%s::bigint[])", [ids])
    else:
        cursor.executemany(f"{insert} VALUES (%s)", [(i,) for i in ids])


def edges_refresh(author_ids: Iterable[int] = (), work_ids: Iterable[int] | None = None) -> int:
    """Bring the edges up to date after a change; return the edge rows written.

    ``work_ids``: the works whose authors may have changed (an import batch knows
    them); only their pairs can have changed, and an empty list means none did.
    ``None`` (a curation decision): every work the authors have now or had when
    last counted.
    """
    authors = sorted({int(a) for a in author_ids if a})
    if work_ids is not None:
        works = sorted({int(w) for w in work_ids if w})
        if not works:
            return 0
    elif not authors:
        return 0
    with transaction.atomic(), connection.cursor() as cursor:
        _lock(cursor)
        _temp_tables(cursor)
        if work_ids is not None:
            _fill(cursor, "graph_tmp_works", "work_id", works)
        else:
            _fill(cursor, "graph_tmp_authors", "author_id", authors)
            cursor.execute(_WORKS_OF_AUTHORS)
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE graph_tmp_works")
        cursor.execute(_CURRENT)
        cursor.execute(_LOST)
        cursor.execute(_GAINED)
        written = max(cursor.rowcount, 0)
        for statement in _REPLACE_COUNTED + _RECOUNT:
            cursor.execute(statement)
        written += max(cursor.rowcount, 0)
    return written


_COUNT_ALL = "INSERT INTO graph_countedauthorship (work_id, author_id, year)" + _VISIBLE_AUTHORSHIPS

_PAIRS_ALL = """
    SELECT c1.author_id, c2.author_id, COUNT(*), MIN(c1.year), MAX(c1.year), CURRENT_TIMESTAMP
    FROM graph_countedauthorship c1
    JOIN graph_countedauthorship c2 ON c2.work_id = c1.work_id AND c2.author_id > c1.author_id
    GROUP BY c1.author_id, c2.author_id
"""


def edges_rebuild() -> int:
    """Recount every pair from scratch; return the number of edges."""
    postgres = connection.vendor == "postgresql"
    if postgres:
        # Fresh statistics first: a plan built on stale ones can loop for hours.
        with connection.cursor() as cursor:
            cursor.execute(
                "ANALYZE publications_author, publications_authorship, publications_work"
            )
    with transaction.atomic(), connection.cursor() as cursor:
        _lock(cursor)
        if postgres:
            cursor.execute("SET LOCAL work_mem = '256MB'")
        # Only edge writers (who hold the lock) read the counted rows: truncate them.
        cursor.execute(("TRUNCATE" if postgres else "DELETE FROM") + " graph_countedauthorship")
        cursor.execute(_COUNT_ALL)
        if postgres:
            cursor.execute("ANALYZE graph_countedauthorship")
        cursor.execute("DELETE FROM graph_coauthoredge")
        cursor.execute(_INSERT + _PAIRS_ALL)
    if postgres:
        # Every row was replaced: the indexes hold the old and the new entries. Built
        # again compact, later updates read half the index pages (a 1,000-work batch
        # at 1M works: 530 ms with the bloated indexes, 280 ms after). Concurrently,
        # so readers are never blocked, unless inside a transaction (tests).
        how = "" if connection.in_atomic_block else " CONCURRENTLY"
        with connection.cursor() as cursor:
            for table in ("graph_coauthoredge", "graph_countedauthorship"):
                cursor.execute(f"REINDEX TABLE{how} {table}")
            cursor.execute("ANALYZE graph_coauthoredge")
    count = CoauthorEdge.objects.count()
    logger.info("graph: rebuilt %s co-author edges", count)
    return count

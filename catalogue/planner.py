"""Planner statistics for tables a bulk job has just filled (PostgreSQL).

Autovacuum analyses a table at most once a minute and may be off; a job that
fills a table faster than that leaves the planner with the statistics of its
empty or older self, and queries planned on them read whole tables.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from django.db import DatabaseError, connection, transaction
from django.db.backends.utils import CursorWrapper
from django.db.models import Model, Value

logger = logging.getLogger("publications")


def analyse(columns: Mapping[type[Model], Iterable[str]]) -> bool:
    """Analyse each model's table on the columns of the named fields.

    Returns False when the database refused (e.g. the user does not own the
    tables); nothing to do away from PostgreSQL.
    """
    if connection.vendor != "postgresql":
        return True
    quote = connection.ops.quote_name
    try:
        with connection.cursor() as cursor:
            for model, names in columns.items():
                fields = ", ".join(quote(model._meta.get_field(name).column) for name in names)
                cursor.execute(f"ANALYZE {quote(model._meta.db_table)} ({fields})")
    except DatabaseError:
        logger.warning("Could not analyse %s", [m._meta.db_table for m in columns], exc_info=True)
        return False
    return True


@contextmanager
def query_settings(settings: Mapping[str, object]) -> Iterator[CursorWrapper]:
    """A transaction (or savepoint) whose queries run under ``settings`` (PostgreSQL).

    ``query_settings({"statement_timeout": 300, "enable_seqscan": "off"})`` sets each
    for the transaction only. That lasts until the outermost transaction ends, not
    the savepoint, so the settings are put back before the block is left: a caller
    already inside a transaction (a request, a test) keeps its own. A block that is
    the outermost transaction leaves that to its commit. A block left by an error
    rolls back to its savepoint, which puts them back too.
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic(), connection.cursor() as cursor:
        pairs = [part for name, value in settings.items() for part in (name, str(value))]
        cursor.execute("SELECT " + ", ".join("set_config(%s, %s, true)" for _ in settings), pairs)
        yield cursor
        if not outermost:  # the names are the caller's constants, never input
            cursor.execute("; ".join(f"SET LOCAL {name} TO DEFAULT" for name in settings))


class Unseen(Value):
    """A value the planner plans a query without reading: ``(SELECT value)``.

    Shown a trigram lookup's text, the planner prices the trigram index by the
    words of the text and may read every row of the table instead (through any
    other index when sequential scans are off), which for a long word costs a
    comparison with every name or title. Planned with its default estimate, the
    lookup reads the index, whose cost follows the rows close to the text.
    """

    def as_sql(self, compiler, connection):
        sql, params = super().as_sql(compiler, connection)
        return f"(SELECT {sql})", params

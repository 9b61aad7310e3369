"""Planner statistics for tables a bulk job has just filled (PostgreSQL).

Autovacuum analyses a table at most once a minute and may be off; a job that
fills a table faster than that leaves the planner with the statistics of its
empty or older self, and queries planned on them read whole tables.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from django.db import DatabaseError, connection
from django.db.models import Model

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

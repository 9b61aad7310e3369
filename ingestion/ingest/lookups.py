"""Batch lookups whose cost does not depend on the planner's guesses: one probe per value.

A batch asks for a thousand rows at once. Given ``column = ANY(…)`` PostgreSQL
weighs one plan for the whole list, and with a thin table or stale statistics
(a fresh import, or autovacuum off) it may read the whole table for every batch,
or answer an equality on ``normalized_title`` from its trigram index (seconds
for a thousand titles). Probing a b-tree once per value costs the same at any
table size. Other databases get the plain ``IN`` query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, models

from catalogue.models import SourceRecord
from ingestion.ingest.rows import any_of, array_literal, on_postgresql


@dataclass(slots=True)
class Stored:
    pk: int
    content_hash: str
    work_id: int | None
    author_id: int | None
    line_digest: str = ""
    updated_at: datetime | None = None  # SourceRecord.source_updated_at

    @property
    def linked(self) -> bool:
        return bool(self.work_id or self.author_id)


def is_older(updated_at: datetime | None, than: datetime | None) -> bool:
    """Whether a record updated at ``updated_at`` is older than one updated at ``than``.

    A record that does not say when it was updated is never taken as the older.
    """
    return updated_at is not None and than is not None and updated_at < than


# OFFSET 0 keeps the subquery a per-id probe instead of letting it be joined wholesale.
PROBE = """
SELECT x.id, s.id, s.content_hash, s.work_id, s.author_id, s.line_digest, s.source_updated_at
FROM unnest(%s::text[]) AS x(id)
CROSS JOIN LATERAL (
    SELECT id, content_hash, work_id, author_id, line_digest, source_updated_at
    FROM publications_sourcerecord
    WHERE source = %s AND entity = %s AND external_id = x.id
    OFFSET 0
) AS s
"""


def stored_records(source: str, entity: str, external_ids: Iterable[str]) -> dict[str, Stored]:
    """The stored source records of ``source`` and ``entity`` with these ids, by external id."""
    ids = list(set(external_ids))
    if not ids:
        return {}
    if on_postgresql():
        with connection.cursor() as cursor:
            cursor.execute(PROBE, [array_literal(ids), source, entity])
            return {row[0]: Stored(*row[1:]) for row in cursor.fetchall()}
    rows = SourceRecord.objects.filter(any_of("external_id", ids), source=source, entity=entity)
    fields = (
        "external_id",
        "pk",
        "content_hash",
        "work_id",
        "author_id",
        "line_digest",
        "source_updated_at",
    )
    return {row[0]: Stored(*row[1:]) for row in rows.values_list(*fields)}


def same_values(model: type[models.Model], field: str, values: Iterable[str], *, where: str = ""):
    """Ids of ``model`` rows whose ``field`` equals one of ``values`` (PostgreSQL).

    The comparison is written as a closed range, which only a b-tree answers, so a
    trigram index on the same column is never chosen for it. ``where`` adds a
    condition on the row (SQL, no parameters).
    """
    table = connection.ops.quote_name(model._meta.db_table)
    column = connection.ops.quote_name(model._meta.get_field(field).column)
    extra = f"AND ({where})" if where else ""
    sql = f"""
        SELECT m.id FROM unnest(%s::text[]) AS x(v)
        CROSS JOIN LATERAL (
            SELECT id FROM {table} WHERE {column} >= x.v AND {column} <= x.v {extra}
            OFFSET 0
        ) AS m
    """  # noqa: S608 - quoted identifiers, values as a parameter
    with connection.cursor() as cursor:
        cursor.execute(sql, [array_literal(set(values))])
        return [row[0] for row in cursor.fetchall()]

"""Inserting many plain rows fast.

Building a model instance per authorship or topic link and compiling an INSERT
for it costs more than the database work itself. Rows that need no id back go
in as tuples: through COPY on PostgreSQL, ``executemany`` elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from django.db import connection, models


def _columns(model: type[models.Model], fields: Sequence[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in fields]


def _json_fields(model, fields) -> set[int]:
    return {
        i
        for i, name in enumerate(fields)
        if isinstance(model._meta.get_field(name), models.JSONField)
    }


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: list[tuple], *, ignore_conflicts=False
) -> None:
    """Insert ``rows`` (tuples in the order of ``fields``) into ``model``'s table.

    With ``ignore_conflicts`` a row that would break a unique constraint is skipped.
    """
    if not rows:
        return
    columns = _columns(model, fields)
    table = model._meta.db_table
    json_at = _json_fields(model, fields)
    if connection.vendor == "postgresql" and not ignore_conflicts:
        _copy(table, columns, rows, json_at)
    else:
        _executemany(table, columns, rows, json_at, ignore_conflicts)


def _copy(table: str, columns: list[str], rows: list[tuple], json_at: set[int]) -> None:
    from psycopg import sql
    from psycopg.types.json import Jsonb

    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    connection.ensure_connection()
    with connection.connection.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            if json_at:
                row = tuple(Jsonb(v) if i in json_at else v for i, v in enumerate(row))
            copy.write_row(row)


def _executemany(table, columns, rows, json_at: set[int], ignore_conflicts: bool = False) -> None:
    quote = connection.ops.quote_name
    statement = "INSERT INTO {} ({}) VALUES ({}){}".format(  # noqa: S608 - quoted identifiers
        quote(table),
        ", ".join(map(quote, columns)),
        ", ".join(["%s"] * len(columns)),
        " ON CONFLICT DO NOTHING" if ignore_conflicts else "",
    )
    if json_at:
        rows = [
            tuple(json.dumps(v) if i in json_at else v for i, v in enumerate(row)) for row in rows
        ]
    with connection.cursor() as cursor:
        cursor.executemany(statement, rows)

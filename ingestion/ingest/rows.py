"""Writing many rows fast.

Building a model instance per authorship or topic link and compiling an INSERT
for it costs more than the database work itself. On PostgreSQL rows go in
through COPY; new rows that need ids get them from the table's sequence first,
in one query, so nothing has to be read back; rows that may already exist go
in as one ``INSERT … SELECT FROM unnest(arrays) ON CONFLICT DO NOTHING``.
Other databases use ``bulk_create`` and ``executemany``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from django.core.exceptions import EmptyResultSet
from django.db import connection, models
from django.db.models import F, Lookup, Q
from django.utils import timezone

from ingestion.ingest.hashing import json_bytes


class JsonText(bytes):
    """A JSON value already serialised: written to a JSON column as it is."""


def _dumps(value) -> bytes:
    if isinstance(value, JsonText):
        return value
    return json_bytes(value, sort_keys=False)


def on_postgresql() -> bool:
    return connection.vendor == "postgresql"


def _fields(model: type[models.Model], names: Sequence[str]) -> list[models.Field]:
    return [model._meta.get_field(name) for name in names]


def _json_at(fields: list[models.Field]) -> set[int]:
    return {i for i, f in enumerate(fields) if isinstance(f, models.JSONField)}


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: list[tuple], *, ignore_conflicts=False
) -> None:
    """Insert ``rows`` (tuples in the order of ``fields``) into ``model``'s table.

    With ``ignore_conflicts`` a row that would break a unique constraint is skipped.
    """
    if not rows:
        return
    resolved = _fields(model, fields)
    columns = [f.column for f in resolved]
    table = model._meta.db_table
    if on_postgresql():
        if ignore_conflicts:
            _insert_unnest(table, resolved, rows)
        else:
            _copy(table, columns, rows, _json_at(resolved))
    else:
        _executemany(table, columns, rows, _json_at(resolved), ignore_conflicts)


@cache
def _defaults(model: type[models.Model]) -> list[tuple[str, object]]:
    return [(f.attname, f.get_default) for f in model._meta.concrete_fields]


def build(model: type[models.Model], **values):
    """A new, unsaved instance, as ``model(**values)`` but without its per-keyword cost.

    Positional arguments take Django's quick path; unnamed fields get their defaults.
    """
    args = [values.pop(name) if name in values else make() for name, make in _defaults(model)]
    if values:
        raise TypeError(f"{model.__name__} has no field {', '.join(values)}")
    return model(*args)


_SEQUENCES: dict[str, str] = {}


def allocate_ids(model: type[models.Model], count: int) -> list[int]:
    """``count`` fresh primary keys from the table's own sequence (PostgreSQL).

    The sequence is named once per table: ``nextval(pg_get_serial_sequence(…))``
    would look it up again for every id, five times the cost of the ``nextval``.
    """
    table = model._meta.db_table
    with connection.cursor() as cursor:
        if table not in _SEQUENCES:
            cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [table, model._meta.pk.column])
            _SEQUENCES[table] = cursor.fetchone()[0]
        cursor.execute(
            "SELECT nextval(%s::regclass) FROM generate_series(1, %s)", [_SEQUENCES[table], count]
        )
        return [row[0] for row in cursor.fetchall()]


def insert_objects(objs: list[models.Model], *, ignore_conflicts: bool = False) -> None:
    """Insert new model instances of one model, as ``bulk_create`` does.

    ``auto_now`` fields are set and no ``save()`` signals are sent. On PostgreSQL
    the ids come from the sequence and the rows go in through COPY; with
    ``ignore_conflicts`` rows that would break a unique constraint are skipped and,
    as with ``bulk_create``, no instance gets its id.
    """
    if not objs:
        return
    model = type(objs[0])
    if not on_postgresql():
        model.objects.bulk_create(objs, ignore_conflicts=ignore_conflicts)
        return
    fields = [f for f in model._meta.concrete_fields if not (ignore_conflicts and f.primary_key)]
    now = timezone.now()
    stamped = [
        f.attname
        for f in fields
        if isinstance(f, models.DateField) and (f.auto_now or f.auto_now_add)
    ]
    for obj in objs:
        for name in stamped:
            setattr(obj, name, now)
    if not ignore_conflicts:
        for obj, pk in zip(objs, allocate_ids(model, len(objs)), strict=True):
            obj.pk = pk
            obj._state.adding = False
            obj._state.db = connection.alias
    names = [f.attname for f in fields]
    rows = [tuple([getattr(obj, name) for name in names]) for obj in objs]
    if ignore_conflicts:
        _insert_unnest(model._meta.db_table, fields, rows)
    else:
        _copy(model._meta.db_table, [f.column for f in fields], rows, _json_at(fields))


def _copy(table: str, columns: list[str], rows: list[tuple], json_at: set[int]) -> None:
    from psycopg import sql
    from psycopg.types.json import Jsonb

    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    connection.ensure_connection()
    with (
        connection.wrap_database_errors,
        connection.connection.cursor() as cursor,
        cursor.copy(statement) as copy,
    ):
        if not json_at:
            for row in rows:
                copy.write_row(row)
            return
        for row in rows:
            row = list(row)
            for i in json_at:
                if row[i] is not None:
                    row[i] = Jsonb(row[i], dumps=_dumps)
            copy.write_row(row)


def _array_type(field: models.Field) -> str:
    if field.is_relation:
        return field.target_field.rel_db_type(connection)
    if isinstance(field, models.JSONField):
        return field.db_type(connection)
    return field.cast_db_type(connection)


def array_literal(values) -> str:
    """A PostgreSQL array literal (``{1,2}``, ``{"a","b"}``) of plain values, built in one pass.

    Sent as one string parameter and cast (``%s::text[]``): psycopg would adapt a
    list element by element in Python, which costs more than the query it is for.
    """
    values = list(values)
    if all(type(v) is int for v in values):
        return "{" + ",".join(map(str, values)) + "}"
    try:
        joined = "\0".join(values)  # strings only; NUL cannot be stored, so it can join them
    except TypeError:
        joined = None
    if values and joined is not None and joined.count("\0") == len(values) - 1:
        joined = joined.replace("\\", "\\\\").replace('"', '\\"')  # escaped all at once
        return '{"' + joined.replace("\0", '","') + '"}'
    return "{" + ",".join(map(_array_element, values)) + "}"


def _array_element(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, bytes):
        value = value.decode()
    elif not isinstance(value, str):
        value = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def array_type(values) -> str:
    """``bigint[]`` for integers, else ``text[]``: the cast for an ``array_literal``."""
    return "bigint[]" if all(type(v) is int for v in values) else "text[]"


def _insert_unnest(table: str, fields: list[models.Field], rows: list[tuple]) -> None:
    """One INSERT for all rows: each column travels as one array; conflicting rows are skipped."""
    from psycopg import sql

    json_at = _json_at(fields)
    columns = [list(column) for column in zip(*rows, strict=True)]
    for i in json_at:
        columns[i] = [None if v is None else _dumps(v).decode() for v in columns[i]]
    columns = [array_literal(column) for column in columns]
    statement = sql.SQL(
        "INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays}) ON CONFLICT DO NOTHING"
    ).format(
        table=sql.Identifier(table),
        columns=sql.SQL(", ").join(sql.Identifier(f.column) for f in fields),
        arrays=sql.SQL(", ").join(
            sql.SQL("%s::{}[]").format(sql.SQL(_array_type(f))) for f in fields
        ),
    )
    with connection.cursor() as cursor:
        cursor.execute(statement.as_string(connection.connection), columns)


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
            tuple(_dumps(v).decode() if i in json_at else v for i, v in enumerate(row))
            for row in rows
        ]
    with connection.cursor() as cursor:
        cursor.executemany(statement, rows)


class AnyOf(Lookup):
    """``field = ANY(array)``: one parameter however many values (``IN (…)`` elsewhere).

    Used as ``Model.objects.filter(AnyOf(F("field"), values))``. A long ``IN`` list
    costs a placeholder, an adaptation and a parse per value; an array costs one.
    """

    lookup_name = "any_of"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        lhs_sql, lhs_params = self.process_lhs(compiler, connection)
        values = list(self.rhs)
        if not values:
            raise EmptyResultSet
        if connection.vendor == "postgresql":
            cast = array_type(values)
            return f"{lhs_sql} = ANY(%s::{cast})", [*lhs_params, array_literal(values)]
        placeholders = ", ".join(["%s"] * len(values))
        return f"{lhs_sql} IN ({placeholders})", [*lhs_params, *values]


def update_column(model: type[models.Model], field: str, values: list[tuple[int, str]]) -> None:
    """Set one text column of many rows: ``values`` holds (primary key, new value) pairs."""
    if not values:
        return
    if not on_postgresql():
        objs = [model(pk=pk, **{field: value}) for pk, value in values]
        model.objects.bulk_update(objs, [field])
        return
    table = connection.ops.quote_name(model._meta.db_table)
    column = connection.ops.quote_name(model._meta.get_field(field).column)
    sql = f"""
        UPDATE {table} AS t SET {column} = v.value
        FROM unnest(%s::bigint[], %s::text[]) AS v(id, value) WHERE t.id = v.id
    """  # noqa: S608 - quoted identifiers, values as parameters
    keys, texts = zip(*values, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(keys), list(texts)])


def any_of(field: str, values) -> Q:
    """``field`` is one of ``values``, as a condition PostgreSQL can answer from an index."""
    return Q(AnyOf(F(field), list(values)))


def present_in(field: str, values) -> Q:
    """``any_of`` for an external id that is unique only where it is set.

    Such a field's unique index is partial (``unique_where_present``). The planner
    uses it for a long list of values only if the query repeats its condition.
    """
    return any_of(field, values) & ~Q(**{field: ""}) & Q(**{f"{field}__isnull": False})

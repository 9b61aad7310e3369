"""An author as the read API's detail reads it: its row, with its last known institution
and its metrics, in one query built once.

The ORM builds the same query (the author with ``select_related`` of both) anew for
every request, and building it costs more than running it. Here it is built once per
database: the author's own condition is the ORM's (``Author.objects.visible()``, as a
subquery), and each row becomes the model instances ``select_related`` makes, each
column converted as the ORM converts it, the related ones cached on the author. The
serializer (``AuthorDetailSerializer``) writes them as it writes any author.
"""

from __future__ import annotations

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field, Model

from catalogue.models import Author, AuthorMetrics, Institution

MARK = 918273645  # stands for the author's id while the query is built
# Read by no answer, and the largest column: left deferred (read again if ever asked for).
LEFT_OUT = {"search_vector"}
PARTS = (("a", Author), ("i", Institution), ("m", AuthorMetrics))


def _fields(model: type[Model]) -> list[Field]:
    return [f for f in model._meta.concrete_fields if f.name not in LEFT_OUT]


@lru_cache(maxsize=4)
def _query(vendor: str) -> tuple[str, list, int]:
    """The query on the database ``vendor``, its parameters and where the id goes in them."""
    quote = connection.ops.quote_name
    visible = Author.objects.visible().filter(pk=MARK).values("pk")
    condition, params = visible.query.sql_with_params()
    columns = ", ".join(
        f"{alias}.{quote(field.column)}" for alias, model in PARTS for field in _fields(model)
    )
    at = {alias: quote(model._meta.pk.column) for alias, model in PARTS}
    institution = quote(Author._meta.get_field("last_known_institution").column)
    owner = quote(AuthorMetrics._meta.get_field("author").column)
    sql = f"""
        SELECT {columns}
        FROM {quote(Author._meta.db_table)} a
        LEFT JOIN {quote(Institution._meta.db_table)} i ON i.{at["i"]} = a.{institution}
        LEFT JOIN {quote(AuthorMetrics._meta.db_table)} m ON m.{owner} = a.{at["a"]}
        WHERE a.{at["a"]} IN ({condition})
    """  # noqa: S608 - quoted identifiers from the models, values as parameters
    return sql, list(params), list(params).index(MARK)


@lru_cache(maxsize=16)
def _converters(database) -> list[tuple[type[Model], list[tuple[str, object, list]]]]:
    """Each part's fields with the ORM's converters of their values read through
    ``database`` (a connection of one thread, kept while the thread lives)."""
    found = []
    for alias, model in PARTS:
        fields = []
        for field in _fields(model):
            column = field.get_col(alias)
            converters = database.ops.get_db_converters(column)
            fields.append((field.attname, column, converters + column.get_db_converters(database)))
        found.append((model, fields))
    return found


def _instances(row) -> list[Model | None]:
    """The row's author, institution and metrics (None where the join found none)."""
    database, values, made = connections[DEFAULT_DB_ALIAS], iter(row), []
    for model, fields in _converters(database):
        names, converted = [], []
        for name, column, converters in fields:
            value = next(values)
            for convert in converters:
                value = convert(value, column, database)
            names.append(name)
            converted.append(value)
        pk = converted[names.index(model._meta.pk.attname)]
        made.append(None if pk is None else model.from_db(DEFAULT_DB_ALIAS, names, converted))
    return made


def author(pk: int) -> Author | None:
    """The visible author ``pk``, its institution and metrics read with it (as
    ``select_related`` reads them); None when no visible author has this id."""
    sql, params, place = _query(connection.vendor)
    params = [*params[:place], pk, *params[place + 1 :]]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    found, institution, metrics = _instances(row)
    Author._meta.get_field("last_known_institution").set_cached_value(found, institution)
    owner = AuthorMetrics._meta.get_field("author")
    owner.remote_field.set_cached_value(found, metrics)  # author.metrics, None included
    if metrics is not None:
        owner.set_cached_value(metrics, found)
    return found

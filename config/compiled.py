"""ORM queries built once per process and run again with new values.

A page that nobody asked for lately reads a few small rows, and for a query with
subqueries or filtered counts the ORM takes longer to build the SQL (resolving
every expression, every join) than PostgreSQL takes to plan and run it. A
``Compiled`` query is written with the ORM as usual, by a function of its
variable values; it is built once with stand-in values, and each call runs that
SQL with the real values put where the stand-ins were.

Only values the ORM passes as parameters can vary this way (a primary key, a
number): building fails loudly where a stand-in does not come out as exactly the
parameters it should, so a query that would be run with a stale value is never
kept.

``instances`` reads the rows as the ORM's own iteration of the query would: the
model's instances with the related rows it selects (``select_related``) and its
annotations, each value through the database's converters. The compiler that
built the SQL is kept for that: what it noted while building (the columns
selected, where each related model's columns start) does not change between runs.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Lock

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler

# Stand-ins no real value takes: negative, yet within a 32-bit column (the ORM
# finds no row at all for a value outside the column's range, and builds no SQL).
_STAND_IN = -1_987_654_321


class Compiled:
    """``build(**values)`` returns the ``QuerySet`` (of ``values`` rows, say);
    ``rows(**values)`` returns its rows as dicts by the names of the columns selected."""

    def __init__(self, build: Callable[..., QuerySet], *names: str):
        self.build, self.names = build, names
        self._built: dict[str, tuple[str, list, dict[int, str], SQLCompiler]] = {}
        self._lock = Lock()

    def _sql(self, using: str) -> tuple[str, list, dict[int, str], SQLCompiler]:
        built = self._built.get(using)
        if built is None:
            with self._lock:
                stand_ins = {name: _STAND_IN - n for n, name in enumerate(self.names)}
                compiler = self.build(**stand_ins).query.get_compiler(using)
                sql, params = compiler.as_sql()
                by_value = {value: name for name, value in stand_ins.items()}
                places = {
                    n: by_value[p] for n, p in enumerate(params) if type(p) is int and p in by_value
                }
                missing = set(self.names) - set(places.values())
                if missing:
                    raise ValueError(f"not parameters of the query: {sorted(missing)}")
                built = self._built[using] = (sql, list(params), places, compiler)
        return built

    def _run(self, using: str, values: dict) -> tuple[list[tuple], list[str], SQLCompiler]:
        sql, params, places, compiler = self._sql(using)
        params = list(params)
        for position, name in places.items():
            params[position] = values[name]
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            names = [column[0] for column in cursor.description]
            return cursor.fetchall(), names, compiler

    def rows(self, using: str = "default", **values) -> list[dict]:
        found, names, _ = self._run(using, values)
        return [dict(zip(names, row, strict=True)) for row in found]

    def instances(self, using: str = "default", **values) -> list:
        """The rows as instances of the query's model, with the related rows it selects and
        its annotations (see the module's docstring)."""
        found, _, compiler = self._run(using, values)
        info = compiler.klass_info
        if info is None or compiler.query.values_select:
            raise ValueError("the query selects no model's rows: read a query of values by rows()")
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        names = [column[0].target.attname for column in compiler.select[start:end]]
        related = get_related_populators(info, compiler.select, using)
        annotations = compiler.annotation_col_map or {}
        model, objects = info["model"], []
        for row in compiler.results_iter([found]):
            instance = model.from_db(using, names, row[start:end])
            for populator in related:
                populator.populate(row, instance)
            for name, position in annotations.items():
                setattr(instance, name, row[position])
            objects.append(instance)
        return objects

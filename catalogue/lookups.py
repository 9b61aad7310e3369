"""A long ``field__in=[...]`` on PostgreSQL as one array parameter: ``field = ANY(%s)``.

Parameters bound by the server (``DATABASE_PREPARED``) count against PostgreSQL's
limit of 65,535 a statement, fewer than the ids of a large corpus. A list of more
than ``ONE_PARAMETER_FROM`` values becomes one parameter, so no list is too long,
and the statement's text is the same whatever the list's length, so a connection
that keeps plans plans it once.

A short list keeps Django's ``IN`` (PostgreSQL reads both the same way), and so
do the conditions of indexes and constraints a migration writes. Subqueries,
composite keys and lists holding expressions keep it too, as does every other
database.
"""

from __future__ import annotations

from django.core.exceptions import EmptyResultSet
from django.db.models import Field, ForeignObject
from django.db.models.expressions import ColPairs
from django.db.models.fields.related_lookups import RelatedIn
from django.db.models.lookups import In

ONE_PARAMETER_FROM = 100


class _AnyArray:
    def as_postgresql(self, compiler, connection):
        if isinstance(self.lhs, ColPairs) or not self.rhs_is_direct_value():
            return self.as_sql(compiler, connection)
        try:
            values = [value for value in dict.fromkeys(self.rhs) if value is not None]
        except TypeError:  # unhashable values (lists for an array column): Django's way
            return self.as_sql(compiler, connection)
        if not values:
            raise EmptyResultSet  # NULL equals nothing, as with IN
        if len(values) < ONE_PARAMETER_FROM:
            return self.as_sql(compiler, connection)
        sqls, params = self.batch_process_rhs(compiler, connection, values)
        if len(params) != len(values) or any(sql != "%s" for sql in sqls):
            return self.as_sql(compiler, connection)
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*lhs_params, list(params))


class ArrayIn(_AnyArray, In):
    pass


class RelatedArrayIn(_AnyArray, RelatedIn):
    pass


def register() -> None:
    Field.register_lookup(ArrayIn)
    ForeignObject.register_lookup(RelatedArrayIn)

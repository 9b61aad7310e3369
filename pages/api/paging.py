"""Paging of the API's work lists: a count that does not scan the table, and cursors.

``?page=`` keeps working as before (``config.api.Pagination``). A page is read
with one row more than it shows, so whether a next page exists never depends on
the count, and the last page knows the count exactly. On any other page the
planner's estimate of the list (PostgreSQL's ``EXPLAIN``) decides: a list it
expects to hold ``UNCOUNTED`` times EXACT_COUNT rows or more is not counted, and
its estimate is given; a shorter one is counted, but no further than
EXACT_COUNT rows plus one, past which the estimate is given again.
``count_exact`` says which. Other databases count every row.

A page past the first is read in two steps in one query (``sliced``): the ids of
its rows, walked in the sort's index, then their rows alone.

``?cursor=*`` starts a walk through the list as OpenAlex offers it: each answer
carries ``next_cursor`` (null on the last page), to be passed as ``?cursor=``.
A cursor holds the sort and the sort key of the last row shown, so the next page
starts right after it through the index in that order, however deep the walk.
A cursor that is not one this API wrote, or was written for another sort, answers
400 in the one error shape.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import OrderedDict

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db import connection
from django.db.models import F, Q, QuerySet
from django.db.models.expressions import OrderBy
from django.utils.functional import cached_property
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from config.api import Pagination

# Counted exactly up to this many rows; past it, estimated.
EXACT_COUNT = 1000
# A list the planner expects to hold this many times EXACT_COUNT rows is not counted.
UNCOUNTED = 5
MAX_CURSOR_LENGTH = 2000
MAX_OFFSET = 2**62  # rows a page may lie past: an OFFSET every database takes


def estimated_count(rows: QuerySet) -> tuple[int, bool]:
    """How many rows ``rows`` holds, and whether exactly (see the module's docstring)."""
    ids = rows.order_by().values("pk")
    if connection.vendor != "postgresql":
        return ids.count(), True
    sql, params = ids.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
        plan = plan if isinstance(plan, list) else json.loads(plan)
        planned = int(plan[0]["Plan"]["Plan Rows"])
        if planned >= UNCOUNTED * EXACT_COUNT:
            return planned, False
        counting = f"SELECT COUNT(*) FROM ({sql} LIMIT {EXACT_COUNT + 1}) counted"  # noqa: S608
        cursor.execute(counting, params)  # the ORM's own SQL, its values as parameters
        capped = cursor.fetchone()[0]
    return (capped, True) if capped <= EXACT_COUNT else (max(planned, capped), False)


def sliced(rows: QuerySet, start: int, stop: int) -> list:
    """``rows[start:stop]``; past the first page, through their ids: the rows before the
    page are walked in the sort's index alone, their other columns (and whatever is
    annotated on them) never read."""
    if start == 0:
        return list(rows[:stop])
    return list(rows.filter(pk__in=rows.values("pk")[start:stop]))


class LookaheadPage(Page):
    """A page read with one row more than it shows: it knows whether another follows."""

    def __init__(self, object_list, number, paginator, more: bool):
        super().__init__(object_list, number, paginator)
        self.more = more

    def has_next(self) -> bool:
        return self.more


class EstimatingPaginator(Paginator):
    """Django's paginator over a count that may be an estimate (``estimated_count``)."""

    @cached_property
    def counted(self) -> tuple[int, bool]:
        return estimated_count(self.object_list)

    @cached_property
    def count(self) -> int:
        return self.counted[0]

    def validate_number(self, number):
        """An integer from 1; a page past the last is found by reading it (``page``)."""
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if number < 1:
            raise EmptyPage("That page number is less than 1")
        if (number - 1) * self.per_page > MAX_OFFSET:  # past what a database can skip
            raise EmptyPage("That page contains no results")
        return number

    def page(self, number):
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        rows = sliced(self.object_list, bottom, bottom + self.per_page + 1)
        if not rows and number > 1:
            raise EmptyPage("That page contains no results")
        more = len(rows) > self.per_page
        if not more:  # the last page: the list ends within it
            self.__dict__["counted"] = (bottom + len(rows), True)
        return LookaheadPage(rows[: self.per_page], number, self, more)


def _sort_keys(rows: QuerySet) -> list[tuple[str, bool]]:
    """The fields ``rows`` is ordered by, each with whether it descends."""
    keys = []
    for item in rows.query.order_by:
        if isinstance(item, str):
            keys.append((item.lstrip("-"), item.startswith("-")))
        elif isinstance(item, OrderBy) and isinstance(item.expression, F):
            keys.append((item.expression.name, item.descending))
        else:
            raise TypeError(f"no cursor over an ordering by {item!r}")
    return [("id" if name == "pk" else name, desc) for name, desc in keys]


def _after(rows: QuerySet, keys: list[tuple[str, bool]], values: list, nulls: bool = True) -> Q:
    """Rows after ``values`` in the order of ``keys`` (nulls last, as ORDERINGS sort);
    ``nulls=False`` leaves out the rows whose first key is null."""
    (name, desc), value = keys[0], values[0]
    nullable = nulls and rows.model._meta.get_field(name).null
    rest = _after(rows, keys[1:], values[1:]) if len(keys) > 1 else None
    if value is None:
        return Q(**{f"{name}__isnull": True}) & rest if rest is not None else Q(pk__in=[])
    later = Q(**{f"{name}__{'lt' if desc else 'gt'}": value})
    if rest is not None:
        later |= Q(**{name: value}) & rest
    return later | Q(**{f"{name}__isnull": True}) if nullable else later


def _rows_after(rows: QuerySet, keys: list[tuple[str, bool]], values: list, limit: int) -> list:
    """The first ``limit`` rows after ``values``.

    The rows up to the cursor are skipped through the index: a bound on the first
    key the index can start from (``year <= 2015``), the rest of the order a filter
    over the rows that tie with it. The rows whose first key is null, last in the
    order, are read only when the others run out.
    """
    (name, desc), first = keys[0], values[0]
    if first is None or not rows.model._meta.get_field(name).null:
        return list(rows.filter(_after(rows, keys, values))[:limit])
    bound = Q(**{f"{name}__{'lte' if desc else 'gte'}": first})
    found = list(rows.filter(bound & _after(rows, keys, values, nulls=False))[:limit])
    if len(found) < limit:
        found += list(rows.filter(**{f"{name}__isnull": True})[: limit - len(found)])
    return found


class CursorPagination(Pagination):
    """``?page=`` with estimated counts, and ``?cursor=`` (see the module's docstring)."""

    django_paginator_class = EstimatingPaginator
    cursor_query_param = "cursor"

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.cursor = None
        raw = request.query_params.get(self.cursor_query_param)
        if raw is None:
            rows = super().paginate_queryset(queryset, request, view)
            self.count, self.count_exact = self.page.paginator.counted
            return rows
        if self.page_query_param in request.query_params:
            message = "Give a page number or a cursor, not both."
            raise ValidationError({self.cursor_query_param: [message]})
        return self._cursor_page(queryset, request, raw)

    def _cursor_page(self, queryset: QuerySet, request, raw: str) -> list:
        size = self.get_page_size(request)
        keys = _sort_keys(queryset)
        if raw == "*":
            found = list(queryset[: size + 1])
        else:
            found = _rows_after(queryset, keys, self._decoded(raw, keys, queryset), size + 1)
        shown = found[:size]
        more = len(found) > size
        if raw == "*" and not more:  # the whole list on one page
            self.count, self.count_exact = len(shown), True
        else:
            self.count, self.count_exact = estimated_count(queryset)
        self.cursor = self._encoded(keys, shown[-1]) if more else None
        return shown

    @staticmethod
    def _encoded(keys: list[tuple[str, bool]], row) -> str:
        values = [row[name] if isinstance(row, dict) else getattr(row, name) for name, _ in keys]
        body = {"s": [f"{'-' if desc else ''}{name}" for name, desc in keys], "v": values}
        text = json.dumps(body, default=str, separators=(",", ":"))
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    def _decoded(self, raw: str, keys: list[tuple[str, bool]], rows: QuerySet) -> list:
        invalid = ValidationError(
            {self.cursor_query_param: ["Not a cursor of this list: start again with cursor=*."]}
        )
        if len(raw) > MAX_CURSOR_LENGTH:
            raise invalid
        try:
            text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
            body = json.loads(text)
            sort = [f"{'-' if desc else ''}{name}" for name, desc in keys]
            if not isinstance(body, dict) or body.get("s") != sort:
                raise invalid
            values = body.get("v")
            if not isinstance(values, list) or len(values) != len(keys):
                raise invalid
            fields = [rows.model._meta.get_field(name) for name, _ in keys]
            return [
                None if value is None else field.to_python(value)
                for field, value in zip(fields, values, strict=True)
            ]
        except (ValueError, TypeError, binascii.Error, DjangoValidationError):
            raise invalid from None

    def get_paginated_response(self, data):
        if self.request.query_params.get(self.cursor_query_param) is None:
            return Response(
                OrderedDict(
                    [
                        ("count", self.count),
                        ("count_exact", self.count_exact),
                        ("next", self.get_next_link()),
                        ("previous", self.get_previous_link()),
                        ("results", data),
                    ]
                )
            )
        url = self.request.build_absolute_uri()
        following = (
            replace_query_param(url, self.cursor_query_param, self.cursor) if self.cursor else None
        )
        return Response(
            OrderedDict(
                [
                    ("count", self.count),
                    ("count_exact", self.count_exact),
                    ("next_cursor", self.cursor),
                    ("next", following),
                    ("previous", None),
                    ("results", data),
                ]
            )
        )

    def get_paginated_response_schema(self, schema):
        answer = super().get_paginated_response_schema(schema)
        properties = answer["properties"]
        properties["count_exact"] = {
            "type": "boolean",
            "description": (
                "False when the count is the database's estimate: past "
                f"{EXACT_COUNT:,} rows, or where the list is expected to hold "
                f"{UNCOUNTED * EXACT_COUNT:,} or more (the last page counts exactly)."
            ),
        }
        properties["next_cursor"] = {
            "type": "string",
            "nullable": True,
            "description": "With ?cursor=: the cursor of the next page; null on the last.",
        }
        return answer

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        description = "* for the first page, then the next_cursor of the answer before."
        parameters.append(
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": description,
                "schema": {"type": "string"},
            }
        )
        return parameters

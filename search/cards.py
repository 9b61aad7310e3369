"""The works of a page of search results, read for their list entries.

A list entry (``publications/_work_item.html``) shows a work, its venue and the
first ``byline_reads.LISTED`` names of its byline with the byline's length: what
``catalogue.selectors.works_with_authors`` reads. For the twenty works of a page
of results the prefetches that builds cost more than the rows they read (each
windowed query compiled, each work given a filtered queryset of its own), so a
page of results reads the same rows in three statements, two of them plain SQL:
the works with their venues; the first names of each byline with their records
and the count of all of them; and, the same way, the names no record holds at
the positions no authorship takes (``byline_reads.unlinked_shown``, the first by
id where two sources name one position). Each work is then handed its entries.
Other databases (the embedded SQLite default) read them through
``works_with_authors``.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Model

from catalogue.byline_reads import LISTED
from catalogue.models import Author, Authorship, UnlinkedAuthorship, Work
from catalogue.selectors import works_with_authors


def works_listed(ids: list[int]) -> list[Work]:
    """The works ``ids`` still held, in that order, with their venues, bylines
    (``Work.byline``, the first LISTED names) and byline lengths (``Work.byline_length``)."""
    if not ids:
        return []
    if connection.vendor != "postgresql":  # the ORM's prefetches, the same entries
        found = {work.pk: work for work in works_with_authors(Work.objects.filter(pk__in=ids))}
        return [found[pk] for pk in ids if pk in found]
    works = {work.pk: work for work in Work.objects.select_related("venue").filter(pk__in=ids)}
    held = list(works)
    linked, linked_total = _linked(held)
    unlinked, unlinked_total = _unlinked(held)
    for pk, work in works.items():
        # As a prefetch hands them, but as lists: an entry reads them whole
        # (Work.byline), and a filter asked of them fails instead of reading rows
        # of another work.
        work._prefetched_objects_cache = {
            "authorships": linked.get(pk, []),
            "unlinked_authorships": unlinked.get(pk, []),
        }
        work.byline_total = linked_total.get(pk, 0) + unlinked_total.get(pk, 0)
    return [works[pk] for pk in ids if pk in works]


def _linked(ids: list[int]) -> tuple[dict[int, list[Authorship]], dict[int, int]]:
    """Each work's first LISTED authorships in byline order, each with its author, and
    how many authorships it has."""
    entries, authors = _Loader(Authorship, "e"), _Loader(Author, "au")
    rows = _first(f"SELECT * FROM {_table(Authorship)} WHERE work_id = ANY(%s)")  # noqa: S608
    # Each author is looked up by its key (OFFSET 0 keeps the lookup a lookup): joined
    # plainly, the planner may read every author to hash them for a few dozen names.
    sql = f"""
        SELECT {entries.columns}, e.total, {authors.columns} FROM ({rows}) e
        CROSS JOIN LATERAL (
            SELECT * FROM {_table(Author)} WHERE id = e.author_id OFFSET 0
        ) au ORDER BY e.work_id, e.position, e.id
    """  # noqa: S608 - quoted identifiers from the models, values as parameters
    found: dict[int, list[Authorship]] = {}
    totals: dict[int, int] = {}
    width = len(entries)
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids, LISTED])
        for row in cursor.fetchall():
            entry = entries.load(row[:width])
            entry.author = authors.load(row[width + 1 :])
            found.setdefault(entry.work_id, []).append(entry)
            totals[entry.work_id] = row[width]
    return found, totals


def _unlinked(ids: list[int]) -> tuple[dict[int, list[UnlinkedAuthorship]], dict[int, int]]:
    """Each work's first LISTED names no record holds, at positions no authorship takes
    (the first by id where two sources name one), and how many it has."""
    entries = _Loader(UnlinkedAuthorship, "e")
    unlinked, authorship = _table(UnlinkedAuthorship), _table(Authorship)
    rows = _first(f"""
        SELECT * FROM {unlinked} u WHERE u.work_id = ANY(%s)
        AND NOT EXISTS (SELECT 1 FROM {authorship} a
                        WHERE a.work_id = u.work_id AND a.position = u.position)
        AND NOT EXISTS (SELECT 1 FROM {unlinked} o
                        WHERE o.work_id = u.work_id AND o.position = u.position AND o.id < u.id)
    """)  # noqa: S608 - quoted identifiers from the models, values as parameters
    sql = f"SELECT {entries.columns}, e.total FROM ({rows}) e ORDER BY e.work_id, e.position, e.id"  # noqa: S608
    found: dict[int, list[UnlinkedAuthorship]] = {}
    totals: dict[int, int] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids, LISTED])
        for row in cursor.fetchall():
            entry = entries.load(row[:-1])
            found.setdefault(entry.work_id, []).append(entry)
            totals[entry.work_id] = row[-1]
    return found, totals


def _first(rows: str) -> str:
    """Of ``rows`` (of byline entries), the first LISTED of each work in byline order,
    with ``total``, how many the work has."""
    return f"""
        SELECT * FROM (
            SELECT *, row_number() OVER (PARTITION BY work_id ORDER BY position, id) AS place,
                   count(*) OVER (PARTITION BY work_id) AS total
            FROM ({rows}) rows
        ) numbered WHERE place <= %s
    """  # noqa: S608 - quoted identifiers from the models, values as parameters


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


class _Loader:
    """A model's columns in a row of plain SQL, turned into an instance as the ORM turns
    them (each field's converters applied: JSON read, and so on)."""

    def __init__(self, model: type[Model], alias: str):
        fields = model._meta.concrete_fields
        quote = connection.ops.quote_name
        self.model = model
        self.names = [field.attname for field in fields]
        self.columns = ", ".join(f"{alias}.{quote(field.column)}" for field in fields)
        self.converters = []
        for place, field in enumerate(fields):
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column)
            found += column.get_db_converters(connection)
            if found:
                self.converters.append((place, found, column))

    def __len__(self) -> int:
        return len(self.names)

    def load(self, values) -> Model:
        values = list(values)
        for place, converters, column in self.converters:
            for converter in converters:
                values[place] = converter(values[place], column, connection)
        return self.model.from_db(connection.alias, self.names, values)

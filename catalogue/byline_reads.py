"""A work's byline read a window at a time: its first names and its last, or one page.

A large collaboration's byline runs to thousands of names, so the work page
reads only the names it shows, in a fixed number of queries whatever the
byline's length. The entries are those of ``Work.byline``: the authorships and,
at each position no authorship takes, a name no record holds (an
UnlinkedAuthorship; the first by id when two sources name one position), in
position order.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models import Window as Over
from django.db.models.functions import Coalesce, RowNumber

from catalogue.models import Authorship, UnlinkedAuthorship, Work

LINKED, UNLINKED = 0, 1  # an entry's kind, second in its sort key (position, kind, id)
LISTED = 60  # names a list entry of a work shows (publications/_work_item.html) and reads


@dataclass
class Window:
    """Entries of a byline (Authorship or UnlinkedAuthorship) and the byline's length."""

    entries: list
    total: int
    number: int = 1  # of the page, for ``byline_page``
    pages: int = 1
    start: int = 0  # entries before the page's first

    @property
    def first(self) -> int:
        """The 1-based place of the page's first entry in the byline."""
        return self.start + 1

    @property
    def last(self) -> int:
        return self.start + len(self.entries)


def unlinked_shown() -> QuerySet[UnlinkedAuthorship]:
    """Names no record holds that bylines show: one per position no authorship takes."""
    taken = Authorship.objects.filter(work=OuterRef("work"), position=OuterRef("position"))
    earlier = UnlinkedAuthorship.objects.filter(
        work=OuterRef("work"), position=OuterRef("position"), id__lt=OuterRef("id")
    )
    return UnlinkedAuthorship.objects.exclude(Exists(taken)).exclude(Exists(earlier))


def _keys(work: Work) -> QuerySet:
    """(position, kind, id) of every entry: one query whatever the slice taken of it."""
    kind = IntegerField()
    linked = Authorship.objects.filter(work=work).annotate(kind=Value(LINKED, output_field=kind))
    unlinked = unlinked_shown().filter(work=work).annotate(kind=Value(UNLINKED, output_field=kind))
    return (
        linked.order_by()
        .values_list("position", "kind", "id")
        .union(unlinked.order_by().values_list("position", "kind", "id"), all=True)
    )


def _linked_rows() -> QuerySet[Authorship]:
    """Authorships as a byline shows them: with their authors (the search vector left
    unread) and institutions, in no order (Authorship's own joins the work)."""
    rows = Authorship.objects.select_related("author").prefetch_related("institutions")
    return rows.defer("author__search_vector").order_by()


def _entries(keys: list[tuple[int, int, int]]) -> list:
    """The rows of ``keys``, in their order (authorships with their authors and institutions)."""
    linked = _linked_rows().filter(pk__in=[pk for _, kind, pk in keys if kind == LINKED])
    rows = {(LINKED, row.pk): row for row in linked}
    unlinked_ids = [pk for _, kind, pk in keys if kind == UNLINKED]
    if unlinked_ids:
        rows |= {
            (UNLINKED, r.pk): r for r in UnlinkedAuthorship.objects.filter(pk__in=unlinked_ids)
        }
    return [rows[kind, pk] for _, kind, pk in keys if (kind, pk) in rows]


def byline_total(work: Work) -> int:
    return _keys(work).count()


def _tables(work: Work) -> list[tuple[int, QuerySet]]:
    """The entries of ``work``'s byline in each table, by kind. A work read by
    ``selectors.work_for_page`` says whether any name no record holds is on it."""
    tables = [(LINKED, _linked_rows().filter(work=work))]
    if getattr(work, "has_unlinked", True):
        tables.append((UNLINKED, unlinked_shown().filter(work=work)))
    return tables


def _end(rows: QuerySet, kind: int, count: int, *, last: bool = False) -> tuple[list, int]:
    """``count`` entries from one end of one table's ``rows``, as ((position, kind, id),
    row); from the last end, with how many rows the table holds (0 when unread)."""
    if last:
        rows = rows.annotate(entries_total=Over(Count("pk"))).order_by("-position", "-id")
    else:
        rows = rows.order_by("position", "id")
    found = list(rows[:count])
    total = found[0].entries_total if last and found else 0
    return [((row.position, kind, row.pk), row) for row in found], total


def first_and_last(work: Work, shown: int) -> Window:
    """The first ``shown`` entries and the last (every entry of a byline one longer at most).

    The rows are read from each table's start, in byline order: an authorship query (and
    one for their institutions) for a byline that fits, two more (its last entry with the
    count) whatever the length of a longer one; a query more in each case for a work
    with names no record holds.
    """
    tables = _tables(work)
    found = [entry for kind, rows in tables for entry in _end(rows, kind, shown + 2)[0]]
    first = sorted(found, key=lambda entry: entry[0])[: shown + 2]
    if len(first) <= shown + 1:  # all of it: the one left over is the last
        return Window([row for _, row in first], len(first))
    ends = [_end(rows, kind, 1, last=True) for kind, rows in tables]
    last = max((entry for rows, _ in ends for entry in rows), key=lambda entry: entry[0])
    total = sum(count for _, count in ends)
    return Window([row for _, row in first[:shown]] + [last[1]], total)


def byline_page(work: Work, number: int, per_page: int) -> Window:
    """Page ``number`` (from 1, kept within the pages there are) of ``per_page`` entries."""
    total = byline_total(work)
    pages = max(-(-total // per_page), 1)
    number = min(max(number, 1), pages)
    start = (number - 1) * per_page
    keys = list(_keys(work).order_by("position", "kind", "id")[start : start + per_page])
    return Window(_entries(keys), total, number, pages, start)


def firsts(rows: QuerySet, count: int, *, first=()) -> QuerySet:
    """``rows`` (of works' bylines) ranked in byline order within each work: the first ``count``.

    For a prefetch: unlike a slice, the rank leaves the queryset open to the
    filter a prefetch adds. ``first``: expressions ranking rows ahead of the byline order.
    """
    order = [*first, F("position"), F("id")]
    rank = Over(RowNumber(), partition_by=[F("work_id")], order_by=order)
    return rows.annotate(byline_rank=rank).filter(byline_rank__lte=count)


def first_names(count: int, *, author_id: int | None = None) -> list[Prefetch]:
    """Prefetches for a list of works: each work's first ``count`` entries, in byline order,
    and the authorship of ``author_id`` wherever it stands (a researcher's list says where
    the link to each work came from).

    ``Work.byline`` then gives at most ``2 * count + 1`` entries, of which the first
    ``count`` are the byline's first; ``with_total`` gives the byline's length.
    """
    linked = Authorship.objects.select_related("author").order_by("position", "id")
    if author_id is None:
        linked = firsts(linked, count)
    else:
        own_first = Case(When(author_id=author_id, then=Value(0)), default=Value(1))
        linked = firsts(linked, count + 1, first=[own_first])
    unlinked = unlinked_shown().order_by("position", "id")
    return [
        Prefetch("authorships", queryset=linked),
        Prefetch("unlinked_authorships", queryset=firsts(unlinked, count)),
    ]


def with_total(works: QuerySet[Work]) -> QuerySet[Work]:
    """``works`` annotated with ``byline_total``, the length of each one's byline."""
    linked = Authorship.objects.filter(work=OuterRef("pk"))
    unlinked = unlinked_shown().filter(work=OuterRef("pk"))
    return works.annotate(
        byline_total=Coalesce(Subquery(_counted(linked)), 0)
        + Coalesce(Subquery(_counted(unlinked)), 0)
    )


def _counted(rows: QuerySet) -> QuerySet:
    return rows.order_by().values("work").annotate(n=Count("pk")).values("n")

"""The first names of a page of works' bylines, as the read API writes them.

One query reads, for every work of the page, its first ``count`` authorships in
byline order, the byline's length and the authors' names: each byline is ranked
in its own order (through the index on the work) however long it is, and a
name is looked up for the rows kept alone, so a collaboration's thousands of
names cost a rank each, not a row each. It is written in SQL, as the search
page's cards read theirs (``search.cards``): the ORM ranks within a subquery
too, but it would look every name up before the ranks are cut, and building
that query costs more than running it. The SQL is the same on SQLite. The
names no record holds (``byline_reads.unlinked_shown``) take one more query,
only for the works that have any.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from django.db import connection
from django.db.models import Count, F, Window

from catalogue.byline_reads import firsts, unlinked_shown
from catalogue.models import Author, Authorship


def text(value) -> str | None:
    """A text field as ``NullForUnknown`` writes it: null for a value the record lacks."""
    return None if value is None or value == "" else str(value)


@lru_cache(maxsize=256)
def _linked_sql(vendor: str, works: int, own: bool) -> str:
    """The first names of ``works`` works (ids, then the rank kept; with ``own``, an
    author id first: that author's authorship ranks first), on the database ``vendor``;
    built once for each."""
    quote = connection.ops.quote_name
    authorships, authors = quote(Authorship._meta.db_table), quote(Author._meta.db_table)
    first = "CASE WHEN author_id = %s THEN 0 ELSE 1 END, " if own else ""
    ids = ", ".join(["%s"] * works)
    return f"""
        SELECT kept.work_id, kept.position, kept.author_id,
               (SELECT named.display_name FROM {authors} named WHERE named.id = kept.author_id),
               kept.raw_name, kept.source, kept.confidence, kept.total
        FROM (
            SELECT id, work_id, position, author_id, raw_name, source, confidence,
                   ROW_NUMBER() OVER (PARTITION BY work_id ORDER BY {first}position, id)
                       AS byline_rank,
                   COUNT(*) OVER (PARTITION BY work_id) AS total
            FROM {authorships} WHERE work_id IN ({ids})
        ) kept
        WHERE kept.byline_rank <= %s ORDER BY kept.work_id, kept.position, kept.id
    """  # noqa: S608 - quoted identifiers from the models, values as parameters


class Bylines:
    """The first ``count`` names of each work's byline (authorships and names no record
    holds, as ``WorkSerializer`` writes them) and the byline's length.

    With ``author_id``, that author's authorship too wherever it stands (a
    researcher's list says where the link to each work came from), as
    ``byline_reads.first_names`` reads it.
    """

    def __init__(self, works: list[dict], count: int, *, author_id: int | None = None):
        self.linked: dict[int, list[dict]] = defaultdict(list)
        self.unlinked: dict[int, list[dict]] = defaultdict(list)
        self.total: dict[int, int] = defaultdict(int)
        ids = [work["id"] for work in works]
        if ids:
            self._read_linked(ids, count, author_id)
        self._read_unlinked([work["id"] for work in works if work["any_unlinked"]], count)

    def _read_linked(self, ids: list[int], count: int, author_id: int | None) -> None:
        own = author_id is not None
        params = [*([author_id] if own else []), *ids, count + 1 if own else count]
        with connection.cursor() as cursor:
            cursor.execute(_linked_sql(connection.vendor, len(ids), own), params)
            found = cursor.fetchall()
        for work_id, position, author, name, raw_name, source, confidence, total in found:
            self.total[work_id] = total
            self.linked[work_id].append(
                {
                    "position": position,
                    "author_id": author,
                    "display_name": text(name),
                    "raw_name": text(raw_name),
                    "source": source,
                    "confidence": float(confidence),
                }
            )

    def _read_unlinked(self, ids: list[int], count: int) -> None:
        if not ids:
            return
        shown = firsts(unlinked_shown().filter(work_id__in=ids), count)
        found = (
            shown.annotate(total=Window(Count("pk"), partition_by=[F("work_id")]))
            .order_by("work_id", "position", "id")
            .values_list("work_id", "position", "raw_name", "source", "total")
        )
        counted = set()
        for work_id, position, raw_name, source, total in found:
            if work_id not in counted:
                counted.add(work_id)
                self.total[work_id] += total
            self.unlinked[work_id].append(
                {"position": position, "raw_name": text(raw_name), "source": source}
            )

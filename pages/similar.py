"""The "More like this" lists of work pages, drawn ahead and kept in the database.

A work page shows the works most like it (``publications/_similar_list.html``):
each one's title, type, year, venue, first names and abstract, and why it is
alike. Reading and drawing them is the largest part of a work page nobody has
asked for lately, so each work's list is drawn once and kept as a
``SimilarList`` row, which the page reads in one small query.

A list is drawn again when what it shows changes. ``pages.receivers`` forgets,
and has drawn again once the change commits:

- the lists of the works whose matches are stored anew (``similarities_stored``,
  sent by ``similarity.storing`` inside the transaction that replaces them), or
  whose match rows are saved one at a time (the admin);
- the lists naming a work whose list entry is forgotten: an imported, edited,
  merged or deleted work, a name added to or taken off its byline, a renamed
  researcher on it or a renamed venue (what a list shows of a work is a part of
  what its entry shows).

Lists of another ``generation`` (another template or drawing code) count as
missing: the page draws and keeps them itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from catalogue import selectors
from catalogue.models import Work, WorkSimilarity
from pages import kept
from pages.models import SimilarList

TEMPLATE = "publications/_similar_list.html"
# Raise when the drawing code changes what a list holds: every kept list is drawn again.
FORMAT = "1"
# Lists drawn and written at once.
CHUNK = 500


@cache
def generation() -> str:
    """A token of the list template's text and ``FORMAT``."""
    return kept.generation_of(TEMPLATE, FORMAT)


def draw(links: list[WorkSimilarity]) -> str:
    """A work's list as its page shows it (``links`` read by ``selectors.similar_lists``)."""
    return get_template(TEMPLATE).render({"similar": links})


def lists_store(work_ids: list[int]) -> dict[int, str]:
    """Draw the lists of ``work_ids`` (an empty list for a work without matches) and
    keep them."""
    if not work_ids:
        return {}
    read = selectors.similar_lists(work_ids)
    drawn = {pk: draw(read.get(pk, [])) for pk in work_ids}
    kept.keep(SimilarList, drawn, generation())
    return drawn


def lists_refresh(work_ids: Iterable[int]) -> int:
    """Draw and keep the lists of the works ``work_ids`` still shown; how many."""
    drawn = 0
    for chunk in kept.chunks(work_ids, CHUNK):
        shown = Work.objects.filter(pk__in=chunk, merged_into__isnull=True)
        drawn += len(lists_store(list(shown.order_by("pk").values_list("pk", flat=True))))
    return drawn


def lists_forget(work_ids: Iterable[int]) -> list[int]:
    """The lists of these works are stale: forget them. Returns the ids."""
    return kept.forget(SimilarList, work_ids)


def works_listing(work_ids: Iterable[int]) -> list[int]:
    """The works whose lists may show any of the works ``work_ids`` (a match of theirs)."""
    ids = sorted({int(pk) for pk in work_ids if pk})
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK * 10):
        links = WorkSimilarity.objects.filter(similar_id__in=ids[start : start + CHUNK * 10])
        found.update(links.order_by().values_list("work_id", flat=True).distinct())
    return sorted(found)


def similar_html(work: Work) -> SafeString:
    """The work's list: kept, or drawn now and kept."""
    row = kept.kept_row(SimilarList, work.pk, generation(), ("html",))
    html = row[0] if row else _store_guarded(work.pk)
    return mark_safe(html)  # noqa: S308 - drawn by the template from escaped fields


def _store_guarded(work_id: int) -> str:
    """Draw the work's list and keep it where the write goes through."""
    drawn = {work_id: draw(selectors.similar_lists([work_id]).get(work_id, []))}
    return kept.keep_if_possible(SimilarList, drawn, generation())[work_id]

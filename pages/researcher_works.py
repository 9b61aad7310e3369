"""The works section of a researcher page as most visitors see it, drawn ahead and kept.

Most visitors arrive at a researcher page from a link or a search engine, without a
query string: the first page of works in the default order, the owner's pins
first, with the filter form, the sort and export links and the page links. That
section was most of what a page nobody had asked for lately still drew for its
visitor (the list, its entries placed with why each work is there, and the form).
It is the same for every visitor, so it is drawn when the list or an entry on it
changes and kept as a ``ResearcherWorks`` row, with the ids of the works it lists
(the page is kept under their versions). A query string (a filter, another order
or page) draws the section for its visitor, as before.

``pages.receivers`` forgets a section wherever the researcher's summary is
forgotten (``_authors_stale``: the list's records, figures, pins or name changed)
and wherever an entry it may list is (``_entries_stale``: the sections of every
researcher on those works' bylines), and has it drawn again where a task draws the
summary; the others are drawn by their next visitor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import cache

from django.http import HttpRequest, QueryDict
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from catalogue.models import Author, Authorship
from pages import entries, kept
from pages.models import ResearcherWorks
from pages.researcher_page import ResearcherPage, authors_in_full, in_full, researcher_page

TEMPLATE = "profiles/_researcher_works.html"
# Raise when the drawing code changes what a section holds: every kept one is drawn again.
FORMAT = "1"
# Sections drawn and written at once.
CHUNK = 200

# Told the ids of the works a section lists, before what it shows of them is read.
Listing = Callable[[list[int]], None] | None


@dataclass(frozen=True)
class Section:
    html: SafeString
    shown: list[int]  # the ids of the works listed, pinned first

    def fields(self) -> dict[str, str]:
        return {"html": str(self.html), "shown": " ".join(map(str, self.shown))}


def context(page: ResearcherPage, request: HttpRequest) -> dict:
    """What the section's template reads, for ``page`` as ``request`` asked for it."""
    values = {field.name: getattr(page, field.name) for field in fields(page)}
    # page_author: marked in the bylines, with why each work is on the page.
    return values | {"page_author": page.author, "request": request}


@cache
def _template() -> str:
    return kept.generation_of(TEMPLATE, FORMAT)


def generation() -> str:
    """A token of the template's text, ``FORMAT``, the entries' generation (a section
    holds them) and the site's name and address."""
    return kept.for_site(f"{_template()}|{entries.generation()}")


def draw(author: Author, listing: Listing = None) -> Section:
    """The section of ``author`` (read by ``author_for_page(pk, in_full=True)``) for a
    page without a query string. ``listing(ids)`` is told the works it lists before
    their entries are read."""
    page = researcher_page(author=author, query=QueryDict())
    if listing is not None:
        listing(page.shown_ids())
    html = get_template(TEMPLATE).render(context(page, HttpRequest()))
    return Section(mark_safe(html), page.shown_ids())  # noqa: S308 - escaped by the template


def section_for(author: Author, listing: Listing = None) -> Section:
    """The researcher's section: kept, or drawn now and kept where the write goes through.

    ``listing(ids)`` is told the works the section lists before what it shows of them
    is read: a page reads their page versions there, so that a change committing
    after it renews them (``pages.cache``). The kept section's ids are read first,
    then its HTML where its ids are still the same.
    """
    kept_ids = kept.kept_row(ResearcherWorks, author.pk, generation(), ("shown",))
    if kept_ids is not None:
        shown = [int(pk) for pk in kept_ids[0].split()]
        if listing is not None:
            listing(shown)
        row = kept.kept_row(ResearcherWorks, author.pk, generation(), ("html", "shown"))
        if row is not None and row[1] == kept_ids[0]:
            return Section(mark_safe(row[0]), shown)  # noqa: S308 - drawn as above
    drawn = draw(in_full(author), listing)
    kept.keep_if_possible(ResearcherWorks, {author.pk: drawn.fields()}, generation())
    return drawn


def sections_refresh(author_ids: Iterable[int]) -> int:
    """Draw and keep the sections of the researchers ``author_ids`` still shown; how many."""
    drawn = 0
    for chunk in kept.chunks(author_ids, CHUNK):
        sections = {a.pk: draw(a).fields() for a in authors_in_full(chunk)}
        kept.keep(ResearcherWorks, sections, generation())
        drawn += len(sections)
    return drawn


def sections_forget(author_ids: Iterable[int]) -> list[int]:
    """The sections of these researchers are stale: forget them. Returns the ids."""
    return kept.forget(ResearcherWorks, author_ids)


def sections_listing_forget(work_ids: Iterable[int]) -> None:
    """Entries of these works changed: forget the sections of every researcher on their
    bylines (any of them may list them), one statement a chunk."""
    for chunk in kept.chunks((int(pk) for pk in work_ids if pk), kept.FORGET_CHUNK):
        named = Authorship.objects.filter(work_id__in=chunk)
        ResearcherWorks.objects.filter(author_id__in=named.values("author_id")).delete()

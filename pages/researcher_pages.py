"""A researcher page whole, as a visitor without cookie or query string sees it, kept.

Most visitors of a researcher page arrive from a link or a search engine: no
cookie, no query string, at a page nobody asked for lately. Such a visitor sees the
same page as every other one: the kept summary and works section
(``pages.researcher_summaries``, ``pages.researcher_works``) in the page around
them, with the panels an anonymous visitor sees (the follower count, the claim
holding the record) and the sign-in links. So that page is kept whole, as a
``ResearcherPage`` row holding its HTML and the ids of the works it lists, and such a
visit is answered with two small reads: the ids with the record's state (merged,
deleted, its address), then the HTML where the ids are unchanged, the listed works'
page versions read in between (as ``researcher_works.section_for`` does).

Drawn by the view itself (``pages.researchers.pages_refresh``) wherever a task draws
the works section again, and by a visitor who finds none kept. Forgotten wherever
the summary or the works section is (``pages.receivers``): both at once and again once
the change commits, after its page versions are renewed. A visitor keeps the page it
drew only where no current drawing is kept, then reads the page versions it drew it
under again: a change committed meanwhile has renewed one of them, and the visitor
forgets what it kept (see ``keep_if_possible``).

``generation`` names every template the site can draw and the static files' names
(the page links them), the summary's and the works section's generations, and the
site's name and address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.http import HttpResponse

from catalogue.models import Author, Authorship
from pages import kept, researcher_summaries, researcher_works, slots, whole
from pages.models import ResearcherPage

# Raise when the drawing code changes what a page holds: every kept one is drawn again.
FORMAT = "2"

# Told the ids of the works a page lists, before its HTML is read.
Listing = Callable[[list[int]], None]


def generation() -> str:
    """A token of the site's templates and static files, ``FORMAT``, the summary's and
    works section's generations and the site's name and address."""
    parts = f"{kept.site_files()}|{FORMAT}"
    parts += f"|{researcher_summaries.generation()}|{researcher_works.generation()}"
    return kept.for_site(parts)


def kept_page(pk: int, slug: str, listing: Listing) -> str | None:
    """The researcher's kept page, or None where there is none of this generation or
    where the visit is not the page's own (a record merged away or deleted, another
    address). The ids the page lists are read first, with the record's state, then its
    HTML where they are still the same; ``listing(ids)`` is told them in between."""
    found = _kept(pk, slug, listing, ("html",))
    return None if found is None else found[0]


def kept_for_anyone(
    pk: int, slug: str, listing: Listing, parts: Callable[[], dict[str, str]]
) -> str | None:
    """The researcher's kept page as another visitor sees it (signed in, or with a
    cookie): the parts a visitor without a cookie sees in it replaced by ``parts()``
    (``pages.slots.visitor_parts``), or None as for ``kept_page``."""
    found = _kept(pk, slug, listing, ("html", "slots"))
    spans = None if found is None else slots.spans_read(found[1])
    if spans is None:
        return None
    return slots.refill(found[0], spans, parts())


def _kept(pk: int, slug: str, listing: Listing, columns: tuple[str, ...]) -> tuple | None:
    def own(state: tuple) -> bool:
        merged_into, deleted, name = state
        return merged_into is None and not deleted and slug == Author(display_name=name).slug

    return whole.kept_columns(
        ResearcherPage,
        pk,
        generation(),
        columns,
        listed="shown",
        state=("merged_into_id", "is_deleted", "display_name"),
        own=own,
        listing=lambda shown: listing([int(work) for work in shown.split()]),
    )


def keep_if_possible(pk: int, response: HttpResponse, shown: list[int], versions: dict) -> bool:
    """Keep the page a visit drew (``response``, drawn by ``pages.slots.answer``),
    listing ``shown``, drawn under ``versions``: see ``whole.keep_checked``. Where its
    visitor's parts landed is kept too, for other visitors' parts (``kept_for_anyone``)."""
    fields = {
        "html": response.content.decode(),
        "shown": " ".join(map(str, shown)),
        "slots": slots.spans_text(getattr(response, slots.SPANS)),
    }
    return whole.keep_checked(ResearcherPage, pk, fields, generation(), versions)


def pages_forget(author_ids: Iterable[int]) -> list[int]:
    """The pages of these researchers are stale: forget them now and again once the
    change commits (after its page versions are renewed). Returns the ids."""
    ids = sorted({int(pk) for pk in author_ids if pk})
    if ids:
        kept.forget_twice(ResearcherPage, lambda: kept.forget(ResearcherPage, ids))
    return ids


def pages_listing_forget(work_ids: Iterable[int]) -> None:
    """Entries of these works changed: forget the pages of every researcher on their
    bylines (any of them may list them), now and again once the change commits. The
    bylines are read through their index and the pages forgotten by id."""
    ids = sorted({int(pk) for pk in work_ids if pk})

    def forget() -> None:
        for chunk in kept.chunks(ids, kept.FORGET_CHUNK):
            named = Authorship.objects.filter(work_id__in=chunk, author__isnull=False)
            kept.forget(ResearcherPage, set(named.values_list("author_id", flat=True)))

    if ids:
        kept.forget_twice(ResearcherPage, forget)

"""A work page whole, as a visitor without cookie or query string sees it, kept.

As with researcher pages (``pages.researcher_pages``), most visitors of a work page
arrive from a link or a search engine, without a cookie or a query string, and all
see one page: the kept summary (``pages.summaries``), "More like this" list
(``pages.similar``) and citing works' entries (``pages.entries``) in the page around
them, with the first page of references and of citing works. That page is kept
whole, as a ``WorkPage`` row holding its HTML and the records it shows (the work,
its matches, the works it lists and their authors: ``pagecache.work_page_records``),
and such a visit is answered with two small reads: the records with the work's state
(merged away, its address), then the HTML where the records are unchanged, their
page versions read in between.

Drawn by the view itself (``pages.works.pages_refresh``) where a task draws the
work's summary again, by ``draw_entries``, and by a visitor who finds none kept.
Forgotten (at once and again once the change commits, after its page versions are
renewed) wherever its summary or "More like this" list is, and wherever what its
lists show changes: a work it cites or that cites it (its entry, a citation link),
a name of a reference not held here (``pages.receivers``). A visitor keeps the page
it drew only where none is kept, then reads again the page versions it drew under
and forgets its page if one was renewed. A page whose embargo still runs says so
until a date, and is never kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.http import HttpResponse

from catalogue.models import Citation, Work
from pages import cache as pagecache
from pages import entries, kept, similar, summaries, whole
from pages.models import WorkPage

# Raise when the drawing code changes what a page holds: every kept one is drawn again.
FORMAT = "1"

# Told the records a page shows, before its HTML is read.
Listing = Callable[[list[pagecache.Record]], None]


def generation() -> str:
    """A token of the site's templates and static files, ``FORMAT``, the generations of
    the parts it holds and the site's name and address."""
    parts = f"{kept.site_files()}|{FORMAT}|{summaries.generation()}"
    parts += f"|{similar.generation()}|{entries.generation()}"
    return kept.for_site(parts)


def _records_text(records: Iterable[pagecache.Record]) -> str:
    return " ".join(f"{kind}:{pk}" for kind, pk in sorted(set(records)))


def _records(text: str) -> list[pagecache.Record]:
    found = []
    for item in text.split():
        kind, _, pk = item.partition(":")
        found.append((kind, int(pk)))
    return found


def kept_page(pk: int, slug: str, listing: Listing) -> str | None:
    """The work's kept page, or None where there is none of this generation or where the
    visit is not the page's own (a work merged away, another address). The records it
    shows are read first, with the work's state, then its HTML where they are still the
    same; ``listing(records)`` is told them in between."""

    def own(state: tuple) -> bool:
        merged_into, title = state
        return merged_into is None and slug == Work(title=title).slug

    return whole.kept_html(
        WorkPage,
        pk,
        generation(),
        listed="records",
        state=("merged_into_id", "title"),
        own=own,
        listing=lambda records: listing(_records(records)),
    )


def keep_if_possible(
    pk: int, response: HttpResponse, records: Iterable[pagecache.Record], versions: dict
) -> bool:
    """Keep the page a visit drew (``response``), showing ``records``, drawn under
    ``versions``: see ``whole.keep_checked``."""
    fields = {"html": response.content.decode(), "records": _records_text(records)}
    return whole.keep_checked(WorkPage, pk, fields, generation(), versions)


def pages_forget(work_ids: Iterable[int]) -> list[int]:
    """The pages of these works are stale: forget them now and again once the change
    commits (after its page versions are renewed). Returns the ids."""
    ids = sorted({int(pk) for pk in work_ids if pk})
    if ids:
        kept.forget_twice(WorkPage, lambda: kept.forget(WorkPage, ids))
    return ids


def pages_linked_forget(work_ids: Iterable[int]) -> None:
    """These works changed as lists show them (their entries, their citation links):
    forget their pages and those of the works they cite, that cite them, or that a
    record citing or cited by them was merged into, now and again once the change
    commits (when their new links are there to be read). The links are read through
    their indexes and the pages forgotten by id: an import's batch names many works."""
    ids = sorted({int(pk) for pk in work_ids if pk})

    def forget() -> None:
        for chunk in kept.chunks(ids, kept.FORGET_CHUNK):
            cited = Citation.objects.filter(citing_id__in=chunk, cited__isnull=False)
            citing = Citation.objects.filter(cited_id__in=chunk)
            linked = {*cited.values_list("cited_id", flat=True)}
            linked |= {*citing.values_list("citing_id", flat=True)}
            merged = Work.objects.filter(pk__in=sorted(linked), merged_into__isnull=False)
            targets = merged.values_list("merged_into_id", flat=True) if linked else []
            kept.forget(WorkPage, [*chunk, *linked, *targets])

    if ids:
        kept.forget_twice(WorkPage, forget)

"""Researcher pages, and the addresses that lead to them from external ids."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string

from catalogue.identifiers import normalize_openalex_id, normalize_orcid, openalex_is_local
from catalogue.models import Author
from pages import cache as pagecache
from pages import researcher_pages, researcher_summaries, researcher_works, slots, whole
from pages.models import ResearcherPage
from pages.researcher_page import (
    author_shown,
    in_full,
    researcher_page,
    researcher_viewer,
    source_counts,
)


def _redirect_keeping_query(
    request: HttpRequest, author: Author, *, permanent: bool
) -> HttpResponse:
    url = author.get_absolute_url()
    if request.GET:
        url = f"{url}?{request.GET.urlencode()}"
    return redirect(url, permanent=permanent)


@pagecache.anonymous_page("author")
def researcher_detail(request: HttpRequest, pk: int, slug: str = "") -> HttpResponse:
    """The page every visitor shares (from the cache), with the visitor's own panels drawn in."""
    # Versions first: whatever the page shows is kept under them, so it is read after.
    own_version = pagecache.own_versions(request, "author", pk)
    plain = whole.plain_visit(request)
    if plain and (kept := _kept_whole(pk, slug, own_version, researcher_pages.kept_page)):
        return kept  # as most visitors arrive: the page kept whole
    # What the page shows of the record around its kept parts, read once: for the
    # visitor's panels, and for the shared page where it is not kept.
    author = author_shown(pk)
    if author.merged_into_id:
        # 302: staff can undo a merge, and browsers keep a 301 for good.
        return _redirect_keeping_query(request, author.merged_into, permanent=False)
    if slug != author.slug:
        return _redirect_keeping_query(request, author, permanent=True)
    shared = pagecache.shared_kept("author", author.pk, request)
    if shared is None and not plain and not request.GET and settings.PAGE_CACHE:
        # A member, say, at a page nobody asked for lately: the page kept whole for
        # visitors without a cookie, with this visitor's parts in it.
        def parts() -> dict[str, str]:
            return slots.visitor_parts(request, actions=_actions(author, request))

        def kept_for(pk: int, slug: str, listing) -> str | None:
            return researcher_pages.kept_for_anyone(pk, slug, listing, parts)

        if kept := _kept_whole(pk, slug, own_version, kept_for):
            return kept
    drawn = {}  # what this visit drew the shared page from, where it did

    def build(visitor: HttpRequest, stand_ins: slots.Slots) -> tuple[str, dict]:
        versions = dict(own_version)

        def listing(ids: list[int]) -> None:  # the listed works' versions, before their rows
            versions.update(_listed(ids))

        if visitor.GET:  # filtered, sorted or paged: the works drawn for this query
            page = researcher_page(author=in_full(author), query=visitor.GET)
            listing(page.shown_ids())  # their entries are read as the template draws them
            context = researcher_works.context(page, visitor)
        else:  # as most visitors see them: kept
            section = researcher_works.section_for(author, listing)
            metrics = getattr(author, "metrics", None)
            context = {"author": author, "metrics": metrics, "works_section": section.html}
            context |= {"source_counts": source_counts(author, metrics)}
            drawn["shown"] = section.shown
        summary = researcher_summaries.summary_for(author)  # the record, kept
        drawn["settled"] = summary.settled
        context |= {"summary": summary, "slots": stand_ins}
        return render_to_string("profiles/researcher_detail.html", context, visitor), versions

    shared = shared or pagecache.shared_drawn("author", author.pk, request, build)
    response = slots.answer(request, shared.body, shared.nonce, actions=_actions(author, request))
    if plain and drawn.get("settled") and pagecache.cacheable_response(request, response):
        researcher_pages.keep_if_possible(pk, response, drawn["shown"], shared.versions)
    return pagecache.answer_shows(response, shared.versions)


def _kept_whole(pk: int, slug: str, own_version: dict, kept) -> HttpResponse | None:
    """The page kept whole as ``kept(pk, slug, listing)`` reads it, answered with the
    versions it shows (the record's, then the listed works'), or None."""
    versions = dict(own_version)
    html = kept(pk, slug, lambda ids: versions.update(_listed(ids)))
    return None if html is None else pagecache.answer_shows(HttpResponse(html), versions)


def _actions(author: Author, request: HttpRequest) -> tuple[str, dict]:
    """The visitor's follow, claim and other panels, as a slot's template and context."""
    viewer = researcher_viewer(author=author, viewer=request.user)
    panels = {field.name: getattr(viewer, field.name) for field in fields(viewer)}
    return ("profiles/_researcher_actions.html", {"author": author, **panels})


def _listed(work_ids: list[int]) -> pagecache.Versions:
    """The page versions of the works a page lists (read before what it shows of them)."""
    return pagecache.versions_current(pagecache.entry_records(work_ids))


def pages_refresh(author_ids: Iterable[int]) -> int:
    """Draw and keep the pages of these researchers (still shown) as a visitor without
    cookie or query string sees them (``pages.researcher_pages``); how many were kept."""
    shown = Author.objects.visible().filter(pk__in=list(author_ids)).order_by("pk")
    records = [
        Author(pk=pk, display_name=name) for pk, name in shown.values_list("pk", "display_name")
    ]
    generation = researcher_pages.generation()
    return whole.draw_ahead(researcher_detail.__wrapped__, records, ResearcherPage, generation)


def _not_found(request: HttpRequest, **context) -> HttpResponse:
    return render(
        request, "identifier_not_found.html", {"what": "researcher", **context}, status=404
    )


def researcher_by_orcid(request: HttpRequest, value: str) -> HttpResponse:
    """``/researchers/orcid/<ORCID iD>/``: our page for the author with this ORCID iD."""
    orcid = normalize_orcid(value)
    author = Author.objects.filter(orcid=orcid).first() if orcid else None
    if author is not None and not author.is_deleted:
        return redirect(author.merged_into or author)
    return _not_found(
        request,
        label="ORCID iD",
        value=orcid or value,
        valid=orcid is not None,
        source_url=f"https://orcid.org/{orcid}" if orcid else "",
        source_name="ORCID",
        example="0000-0002-1825-0097",
        search_query="",
    )


def researcher_by_openalex(request: HttpRequest, value: str) -> HttpResponse:
    """``/researchers/openalex/<A id>/``: our page for the author with this OpenAlex id."""
    openalex = normalize_openalex_id(value)
    if openalex and not openalex.startswith("A"):
        openalex = None  # a work, institution or topic id is not an author id
    author = Author.objects.filter(openalex_id=openalex).first() if openalex else None
    if author is not None and not author.is_deleted:
        return redirect(author.merged_into or author)
    local = bool(openalex) and openalex_is_local(openalex)
    return _not_found(
        request,
        label="OpenAlex id",
        value=openalex or value,
        valid=openalex is not None,
        source_url=f"https://openalex.org/{openalex}" if openalex and not local else "",
        source_name="OpenAlex",
        example="A5023888391",
        search_query="",
    )

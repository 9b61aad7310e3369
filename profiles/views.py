"""Researcher pages, and the addresses that lead to them from external ids."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from profiles.charts import citations_chart
from profiles.models import Profile
from publications import selectors
from publications.filters import Sort, WorkFilter
from publications.identifiers import normalize_openalex_id, normalize_orcid
from publications.models import Author, Work

WORKS_PER_PAGE = 20
# OpenAlex numbers its ids below 9,000,000,000; the demo data set and the generated
# corpus use the ranges above 8,000,000,000 for local ids that must not be sent there.
OPENALEX_LOCAL_FROM = 8_000_000_000


def openalex_is_local(openalex_id: str | None) -> bool:
    """Whether an OpenAlex-form id is one of our local ids rather than OpenAlex's own."""
    digits = (openalex_id or "")[1:]
    return digits.isdigit() and int(digits) >= OPENALEX_LOCAL_FROM


def _author_for_page(pk: int) -> Author:
    queryset = Author.objects.select_related("last_known_institution", "metrics", "profile")
    return get_object_or_404(queryset.filter(is_deleted=False), pk=pk)


def _redirect_keeping_query(request: HttpRequest, author: Author) -> HttpResponse:
    url = author.get_absolute_url()
    if request.GET:
        url = f"{url}?{request.GET.urlencode()}"
    return redirect(url, permanent=True)


def _topic_choices(metrics, filterset: WorkFilter) -> list[dict]:
    """The author's main topics for the filter, plus the one asked for if it is not among them."""
    choices = list(metrics.topics_top) if metrics else []
    chosen = getattr(filterset.form, "cleaned_data", {}).get("topic")
    if chosen is not None and all(c.get("key") != chosen.key for c in choices):
        choices.append({"id": chosen.pk, "name": chosen.name, "key": chosen.key, "works": None})
    return choices


def _sort_links(request: HttpRequest, current: str) -> list[dict]:
    """One link per sort order, keeping the filters and starting again at page 1."""
    links = []
    for value, label in Sort.CHOICES:
        params = request.GET.copy()
        params.pop("page", None)
        params["sort"] = value
        links.append({"value": value, "label": label, "url": f"?{params.urlencode()}",
                      "current": value == current})  # fmt: skip
    return links


def _identifiers(author: Author) -> dict:
    openalex = author.openalex_id or ""
    local = bool(openalex) and openalex_is_local(openalex)
    return {
        "orcid_url": f"https://orcid.org/{author.orcid}" if author.orcid else "",
        "openalex_url": f"https://openalex.org/{openalex}" if openalex and not local else "",
        "openalex_local": local,
        "arxiv_url": "https://arxiv.org/search/?"
        + urlencode({"searchtype": "author", "query": author.display_name}),
    }


def _pinned_works(profile: Profile | None, works: QuerySet[Work]) -> list[Work]:
    """The owner's pinned works among ``works`` (visible, matching the filters), in pin order."""
    if profile is None:
        return []
    order = list(
        Profile.pinned_works.through.objects.filter(profile=profile)
        .order_by("id")
        .values_list("work_id", flat=True)
    )
    if not order:
        return []
    found = {work.pk: work for work in works.filter(pk__in=order)}
    return [found[pk] for pk in order if pk in found]


def researcher_detail(request: HttpRequest, pk: int, slug: str = "") -> HttpResponse:
    author = _author_for_page(pk)
    if author.merged_into_id:
        return _redirect_keeping_query(request, author.merged_into)
    if slug != author.slug:
        return _redirect_keeping_query(request, author)
    metrics = getattr(author, "metrics", None)
    profile = getattr(author, "profile", None)
    filterset = WorkFilter(request.GET, queryset=selectors.author_works(author))
    pinned = _pinned_works(profile, filterset.qs)
    rest = filterset.qs.exclude(pk__in=[w.pk for w in pinned]) if pinned else filterset.qs
    works = Paginator(rest, WORKS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "author": author,
        "page_author": author,  # marked in the author lists of the works
        "profile": profile,
        "metrics": metrics,
        "chart": citations_chart(metrics.citations_by_year) if metrics else None,
        "filterset": filterset,
        "filters_active": filterset.active,
        "works": works,
        # The owner's pins lead the first page; they count among the works shown.
        "pinned_works": pinned if works.number == 1 else [],
        "works_total": len(pinned) + works.paginator.count,
        "sort_links": _sort_links(request, filterset.sort_value),
        "topic_choices": _topic_choices(metrics, filterset),
        "identifiers": _identifiers(author),
    }
    return render(request, "profiles/researcher_detail.html", context)


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

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from publications import search as search_service
from publications import selectors
from publications.models import Work

SEARCH_AUTHORS = 8  # researchers shown above the works; more behind a link


def home(request: HttpRequest) -> HttpResponse:
    context = {
        "authors": selectors.recent_authors(limit=8),
        "works": selectors.recent_works(limit=10),
    }
    return render(request, "publications/home.html", context)


def work_detail(request: HttpRequest, pk: int, slug: str = "") -> HttpResponse:
    work = get_object_or_404(selectors.works_with_authors(Work.objects.all()), pk=pk)
    if work.merged_into_id:
        return redirect(work.merged_into, permanent=True)
    if slug != work.slug:
        return redirect(work, permanent=True)
    return render(request, "publications/work_detail.html", {"work": work})


def search(request: HttpRequest) -> HttpResponse:
    """Researchers and works in one ranked page, with filters for the works."""
    form = search_service.SearchForm(request.GET)
    form.is_valid()
    query = form.cleaned_data.get("q", "")
    context = {"form": form, "query": query}
    if query:
        filters = form.filters()
        authors = search_service.search_authors(query)
        if form.cleaned_data.get("show") == "researchers":
            context["authors_page"] = Paginator(authors, 20).get_page(request.GET.get("page"))
        else:
            matches = search_service.search_works(query, filters)
            works = Paginator(selectors.works_with_authors(matches), 20).get_page(
                request.GET.get("page")
            )
            context.update(
                authors=list(authors[: SEARCH_AUTHORS + 1]),
                works=works,
                filters=filters,
                type_facets=search_service.type_facets(matches),
                topic_facets=search_service.topic_facets(matches),
            )
    return render(request, "publications/search.html", context)

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from publications import selectors
from publications.models import Work


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
    query = request.GET.get("q", "").strip()[:200]
    authors = works = None
    if query:
        authors = selectors.search_authors(query)[:20]
        works = Paginator(selectors.search_works(query), 20).get_page(request.GET.get("page"))
    return render(
        request, "publications/search.html", {"query": query, "authors": authors, "works": works}
    )

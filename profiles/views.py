from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from publications import selectors
from publications.models import Author


def researcher_detail(request: HttpRequest, pk: int, slug: str = "") -> HttpResponse:
    author = get_object_or_404(
        Author.objects.select_related("last_known_institution", "metrics"), pk=pk
    )
    if author.merged_into_id:
        return redirect(author.merged_into, permanent=True)
    if slug != author.slug:
        return redirect(author, permanent=True)
    works = Paginator(selectors.author_works(author), 20).get_page(request.GET.get("page"))
    return render(request, "profiles/researcher_detail.html", {"author": author, "works": works})

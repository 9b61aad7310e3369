"""Pages of institutions, venues and topics (see pages.entity_reads)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from pages import entity_reads as entities

PAGES = {
    "institution": entities.institution_page,
    "venue": entities.venue_page,
    "topic": entities.topic_page,
}


def entity_detail(request: HttpRequest, kind: str, pk: int, slug: str = "") -> HttpResponse:
    """One institution, venue or topic; a wrong or missing slug redirects to the right one."""
    page = PAGES[kind](
        pk,
        works_page=request.GET.get("page"),
        researchers_page=request.GET.get("researchers"),
    )
    if slug != page.entity.slug:
        query = request.GET.urlencode()
        url = page.entity.get_absolute_url() + (f"?{query}" if query else "")
        return redirect(url, permanent=True)
    return render(request, "publications/entity_detail.html", {"page": page, "entity": page.entity})

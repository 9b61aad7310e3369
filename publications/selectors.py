"""Reads shared by pages and the API."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from publications.models import Author, Authorship, Work


def works_with_authors(queryset: QuerySet[Work]) -> QuerySet[Work]:
    """Works with their venue and ordered authorships loaded in a fixed number of queries."""
    authorships = Authorship.objects.select_related("author").order_by("position")
    return queryset.select_related("venue").prefetch_related(
        Prefetch("authorships", queryset=authorships)
    )


def recent_works(*, limit: int = 10) -> list[Work]:
    return list(works_with_authors(Work.objects.visible().order_by("-created_at", "-id"))[:limit])


def recent_authors(*, limit: int = 10) -> list[Author]:
    return list(
        Author.objects.visible()
        .select_related("last_known_institution", "metrics")
        .order_by("-created_at", "-id")[:limit]
    )


def author_works(author: Author) -> QuerySet[Work]:
    return works_with_authors(
        Work.objects.visible()
        .filter(authorships__author=author)
        .order_by("-publication_date", "-id")
    )

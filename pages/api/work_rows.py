"""Work lists of the read API, read in a fixed number of small queries and written as
``WorkSerializer`` writes a work.

A page is one query for its works (``rows``; a deep page finds its ids through
the sort's index first, ``pages.api.paging.sliced``) and one for their first
names (``pages.api.bylines``).

The columns are read as values, not model instances, and written here field by
field as the serializer's fields write them (``NullForUnknown``, ``WebURLField``,
``PublicationDate``); the serializer stays the declaration the schema documents,
and the tests hold the two to the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, F, OuterRef, QuerySet
from django.urls import reverse

from catalogue.dates import PartialDate
from catalogue.links import web_url
from catalogue.models import UnlinkedAuthorship, Work
from config.sites import absolute_url
from pages.api.bylines import Bylines, text

# The stored fields a list entry writes after its venue (WorkSerializer, in its order).
AFTER_VENUE = (
    "journal_ref",
    "arxiv_primary_category",
    "doi",
    "arxiv_id",
    "openalex_id",
    "cited_by_count",
    "abstract",
    "comments",
    "code_url",
    "is_open_access",
    "oa_status",
)
# The stored fields a work's detail writes besides a list entry's (WorkDetailSerializer).
DETAIL_STORED = (
    "source_created_date",
    "source_updated_at",
    "pdf_url",
    "landing_url",
    "license",
    "oa_url",
    "volume",
    "issue",
    "first_page",
    "last_page",
    "is_retracted",
    "embargo_until",
    "counts_by_year",
)
# The work columns a list entry writes (WorkSerializer), besides the venue's name.
LIST_COLUMNS = (
    "id",
    "title",
    "type",
    "publication_date",
    "publication_date_precision",
    "publication_year",
    *AFTER_VENUE,
    "normalized_title",  # not written: the title sort's key, for its cursors
)


def web(value) -> str | None:
    """An address as ``WebURLField`` writes it: null unless it is http(s) with a host."""
    return web_url(value) or None


class _Titled:
    """What ``Work.slug`` reads of a work: its title."""

    __slots__ = ("title",)
    slug = Work.slug

    def __init__(self, title: str):
        self.title = title


class PageURLs:
    """Absolute addresses of work pages (``PageURLField`` of ``get_absolute_url``): the
    route is reversed once, and each work's id and slug put in its place."""

    MARK = 918273645

    def __init__(self):
        marked = reverse("publications:work", kwargs={"pk": self.MARK, "slug": "mark"})
        self.head, self.tail = absolute_url(marked).split(f"{self.MARK}-mark")

    def __call__(self, pk: int, title: str) -> str:
        return f"{self.head}{pk}-{_Titled(title).slug}{self.tail}"


def rows(works: QuerySet[Work], columns: Iterable[str] = LIST_COLUMNS) -> QuerySet:
    """``works``, in their order, as values of ``columns``, with the venue's name and
    whether any name of the byline is held by no record (``any_unlinked``)."""
    unlinked = UnlinkedAuthorship.objects.filter(work=OuterRef("pk"))
    values = works.values(*columns, venue_name=F("venue__name"))
    return values.annotate(any_unlinked=Exists(unlinked))


def written(work: dict, bylines: Bylines, urls: PageURLs) -> dict:
    """A work as ``WorkSerializer`` writes it, from its ``rows`` values."""
    pk = work["id"]
    published = PartialDate.of(
        work["publication_date"], work["publication_year"], work["publication_date_precision"]
    )
    return {
        "id": pk,
        "title": text(work["title"]),
        "url": urls(pk, work["title"]),
        "type": work["type"],
        "publication_date": published.iso if published else None,
        "publication_date_precision": published.precision if published else None,
        "publication_year": work["publication_year"],
        "venue": text(work["venue_name"]),
        "journal_ref": text(work["journal_ref"]),
        "arxiv_primary_category": text(work["arxiv_primary_category"]),
        "doi": text(work["doi"]),
        "arxiv_id": text(work["arxiv_id"]),
        "openalex_id": text(work["openalex_id"]),
        "cited_by_count": work["cited_by_count"],
        "abstract": text(work["abstract"]),
        "comments": text(work["comments"]),
        "code_url": web(work["code_url"]),
        "is_open_access": work["is_open_access"],
        "oa_status": text(work["oa_status"]),
        "authorships": bylines.linked.get(pk, []),
        "unlinked_authors": bylines.unlinked.get(pk, []),
        "authors_count": bylines.total.get(pk, 0),
    }


def page(works: list[dict], count: int, *, author_id: int | None = None) -> list[dict]:
    """``works`` (``rows``) as ``WorkSerializer`` writes them, each with its first
    ``count`` names (see ``Bylines``)."""
    bylines, urls = Bylines(works, count, author_id=author_id), PageURLs()
    return [written(work, bylines, urls) for work in works]


class ListedWorks:
    """A work list viewset's ``list``: its works read as values (``rows``) and written as
    ``WorkSerializer`` writes them, each with the first ``names`` names of its byline
    (and the name of ``author_id``, when the viewset sets one)."""

    names: int
    author_id: int | None = None

    def list(self, request, *args, **kwargs):
        return self.listed(self.filter_queryset(self.get_queryset()))

    def listed(self, works: QuerySet[Work]):
        """A page of ``works``, in their order, with the paging links."""
        found = self.paginate_queryset(rows(works))
        return self.get_paginated_response(page(found, self.names, author_id=self.author_id))

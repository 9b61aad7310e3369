"""A researcher's whole list of works as a BibTeX, RIS or CSL-JSON download."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse

from catalogue import selectors
from catalogue.filters import WorkFilter
from catalogue.models import Author, Authorship
from exports import lists as list_exports
from pages import cache as pagecache
from pages.conditional import conditional


def _list_records(request: HttpRequest, pk: int, extension: str) -> list[pagecache.Record]:
    """What a researcher's list shows: the researcher and every author of its works.

    A change to one of the works renews the versions of all its authors, this one too.
    """
    ids = Authorship.objects.filter(work__authorships__author_id=pk, author__isnull=False)
    ids = ids.values_list("author_id", flat=True).distinct()
    return [("author", int(pk)), *(("author", a) for a in ids)]


@conditional(_list_records)
def researcher_export(request: HttpRequest, pk: int, extension: str) -> HttpResponse:
    """Every work of the list the researcher page shows for the same query string.

    Filters and sort are the page's own (``WorkFilter``); the page number is not:
    the download holds the whole filtered list, streamed.
    """
    fmt = list_exports.FORMATS.get(extension)
    if fmt is None:
        raise Http404("No such export format.")
    author = get_object_or_404(Author.objects.filter(is_deleted=False), pk=pk)
    if author.merged_into_id:
        url = reverse(
            f"profiles:researcher_export_{extension}", kwargs={"pk": author.merged_into_id}
        )
        query = request.GET.urlencode()
        # Not permanent: staff can undo a merge, and browsers keep a 301 for good.
        return redirect(f"{url}?{query}" if query else url)
    works = selectors.author_works(author, names=None)  # a citation names every author
    filterset = WorkFilter(request.GET, queryset=works)
    return list_exports.streamed(
        filterset.qs,
        keys_from=works,
        fmt=fmt,
        name=f"{author.slug[:60] or 'researcher'}-{author.pk}-works",
    )

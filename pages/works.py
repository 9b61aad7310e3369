from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import F, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from catalogue import citations, identifiers, selectors
from catalogue.filters import ORDERINGS, Sort
from catalogue.models import Author, ReferencePreview, Source, SourceRecord, Work
from exports import lists as list_exports
from exports import work as exports
from pages import cache as pagecache
from pages import similar, slots, summaries, whole, work_pages
from pages.conditional import conditional, work_records
from pages.models import WorkPage
from search import names as name_search
from search import works as search_service
from search.matches import WorksById

SEARCH_WORKS_PER_PAGE = 20
SEARCH_AUTHORS = 8  # researchers shown above the works; more behind a link
PERSON_WORKS = 5  # works of the researcher a query names, above the works that match
MAX_MERGE_HOPS = 10


def home(request: HttpRequest) -> HttpResponse:
    context = {
        "authors": selectors.recent_authors(limit=8),
        "works": selectors.recent_works(limit=10),
    }
    return render(request, "publications/home.html", context)


@pagecache.anonymous_page("work")
def work_detail(request: HttpRequest, pk: int, slug: str = "") -> HttpResponse:
    plain, own_version = whole.plain_visit(request), {}
    if plain:  # as most visitors arrive: the page kept whole, if it is
        versions = {}
        html = work_pages.kept_page(
            pk, slug, lambda shows: versions.update(pagecache.versions_current(shows))
        )
        if html is not None:
            return pagecache.answer_shows(HttpResponse(html), versions)
        own_version = pagecache.own_versions(request, "work", pk)  # before the work is read
    work = selectors.work_for_page(pk)
    if work.merged_into_id:
        return redirect(work.merged_into)  # not permanent: staff can undo a merge
    if slug != work.slug:
        return redirect(work, permanent=True)
    references = citations.work_references(work, page=request.GET.get("references"))
    cited_by = citations.work_cited_by(work, page=request.GET.get("cited_by"))
    # The citing works' list entries are kept (pages.entries): their bylines are read
    # only for an entry that is not.
    citing = cited_by.page.object_list.values_list("pk", flat=True)
    cited_by.page.object_list = WorksById(list(citing))
    shown = records = None
    if pagecache.cacheable_request(request):  # a page that may be kept: what it shows, first
        records = pagecache.work_page_records(work.pk, citations.listed(references, cited_by))
        shown = pagecache.versions_current(records)
    _name_references(references)
    if request.GET.get("authors") == "all":  # a page of the whole byline: drawn for each visitor
        authors_page = request.GET.get("authors_page", "")
        number = int(authors_page) if authors_page.isdecimal() and len(authors_page) < 7 else 1
        summary = summaries.draw(work, all_authors=True, authors_page=number)
    else:
        summary = summaries.summary_for(work)
    embargo_active = bool(work.embargo_until and work.embargo_until > timezone.localdate())
    context = {
        "work": work,
        "summary": summary,
        "embargo_active": embargo_active,
        "references": references,
        "cited_by": cited_by,
        "similar_list": similar.similar_html(work),
    }
    response = render(request, "publications/work_detail.html", context)
    # Kept whole where it says nothing of the day (an embargo still running) and the
    # work's version is the one read before the work was.
    unchanged = plain and all(shown.get(key) == value for key, value in own_version.items())
    if unchanged and not embargo_active and pagecache.cacheable_response(request, response):
        work_pages.keep_if_possible(pk, response, records, shown)
    return pagecache.answer_shows(response, shown)


def pages_refresh(work_ids: Iterable[int]) -> int:
    """Draw and keep the pages of these works (still shown) as a visitor without cookie
    or query string sees them (``pages.work_pages``); how many were kept."""
    shown = Work.objects.visible().filter(pk__in=list(work_ids)).order_by("pk")
    records = [Work(pk=pk, title=title) for pk, title in shown.values_list("pk", "title")]
    return whole.draw_ahead(work_detail.__wrapped__, records, WorkPage, work_pages.generation())


def _name_references(references: citations.References) -> None:
    """Give each shown reference not held here what OpenAlex says of it (``preview``, or None)."""
    rows = list(references.page.object_list)
    references.page.object_list = rows
    unheld = [row.cited_openalex_id for row in rows if row.cited_id is None]
    previews = ReferencePreview.objects.filter(openalex_id__in=unheld) if unheld else []
    named = {preview.openalex_id: preview for preview in previews if preview.found}
    for row in rows:
        row.preview = named.get(row.cited_openalex_id) if row.cited_id is None else None


def search(request: HttpRequest) -> HttpResponse:
    """Researchers and works in one ranked page, with filters for the works.

    The page is the same for every visitor: it is kept (``pagecache.shared_page``)
    until any record changes, and only the account menu is drawn for each visitor.
    """
    form = search_service.SearchForm(request.GET)
    form.is_valid()
    query = form.cleaned_data.get("q", "")
    if reference := identifiers.parse_reference(query):
        return redirect(_reference_target(*reference))

    def build(visitor: HttpRequest, stand_ins: slots.Slots) -> tuple[str, dict]:
        versions = pagecache.versions_current([pagecache.SEARCH])  # before the rows
        context = {"form": form, "query": query, "slots": stand_ins}
        if query:
            context |= _search_results(visitor, form, query)
        return render_to_string("publications/search.html", context, visitor), versions

    shared = pagecache.shared_page(*pagecache.SEARCH, request, build)
    return not_indexed(slots.answer(request, shared.body, shared.nonce))


def not_indexed(response: HttpResponse) -> HttpResponse:
    """Search engines leave out a page of results, and follow its links to the records."""
    response["X-Robots-Tag"] = "noindex, follow"
    return response


def _search_results(request: HttpRequest, form, query: str) -> dict:
    if form.cleaned_data.get("show") == "researchers":
        authors = name_search.search_authors(query)
        return {"authors_page": Paginator(authors, 20).get_page(request.GET.get("page"))}
    filters = form.filters()
    # The name index first: a query that names a researcher needs no titles close to it.
    found = name_search.search_authors_first(query, SEARCH_AUTHORS + 1)
    person = name_search.named_person(query, found)
    similar_titles = not name_search.names_someone(query, found)
    matches = search_service.search_works(query, filters, similar_titles=similar_titles)
    works = Paginator(matches, SEARCH_WORKS_PER_PAGE).get_page(request.GET.get("page"))
    return {
        "authors": found,
        "person": person,
        "person_works": _person_works(person) if person and works.number == 1 else [],
        "works": works,
        "filters": filters,
        "type_facets": matches.type_facets(),
        "topic_facets": matches.topic_facets(),
        "topic_sample": matches.topic_sample,
    }


def _person_works(person: Author) -> WorksById:
    """The newest works of the researcher a search names, shown before the matching works
    (read only when their list entries are not kept, as the matching works are)."""
    works = Work.objects.visible().filter(authorships__author=person)
    newest = works.order_by(*ORDERINGS[Sort.NEWEST]).values_list("pk", flat=True)
    return WorksById(list(newest[:PERSON_WORKS]))


def _search_page(request: HttpRequest) -> tuple[str, list[Work]]:
    """The query and the works of the search page shown for the same query string,
    with their whole bylines (the page lists only the first names)."""
    form = search_service.SearchForm(request.GET)
    form.is_valid()
    query = form.cleaned_data.get("q", "")
    if not query or form.cleaned_data.get("show") == "researchers":
        return query, []
    matches = search_service.search_works(query, form.filters())
    page = Paginator(matches, SEARCH_WORKS_PER_PAGE).get_page(request.GET.get("page"))
    ids = getattr(page.object_list, "ids", None) or [work.pk for work in page.object_list]
    whole = selectors.works_with_authors(Work.objects.filter(pk__in=ids), names=None)
    found = {work.pk: work for work in whole}
    return query, [found[pk] for pk in ids if pk in found]


def search_export(request: HttpRequest, extension: str) -> HttpResponse:
    """The works of one page of search results as a BibTeX, RIS or CSL-JSON download."""
    query, works = _search_page(request)
    name = f"search-{slugify(query)[:40] or 'results'}-page-{request.GET.get('page') or 1}"
    answer = list_exports.whole(works, fmt=list_exports.FORMATS[extension], name=slugify(name))
    return not_indexed(answer)


def _reference_target(kind: str, value: str) -> str:
    """Where an id typed into the search box leads: our page, else the page saying we lack it."""
    if kind in ("orcid", "openalex-author"):
        field = "orcid" if kind == "orcid" else "openalex_id"
        author = Author.objects.filter(**{field: value}, is_deleted=False).first()
        if author is not None:
            return (author.merged_into or author).get_absolute_url()
        by = "orcid" if kind == "orcid" else "openalex"
        return reverse(f"profiles:researcher_by_{by}", kwargs={"value": value})
    scheme = {"doi": "doi", "arxiv": "arxiv", "openalex-work": "openalex"}[kind]
    work = _work_by_id(WORK_IDS[scheme], value)
    if work is not None:
        return work.get_absolute_url()
    return reverse(f"publications:work-by-{scheme}", kwargs={"value": value})


# Work exports and external ids ------------------------------------------------


def _export(work_pk: int, render_export, content_type: str, extension: str) -> HttpResponse:
    work = selectors.work_with_byline(work_pk)
    if work.merged_into_id:
        return redirect(_export_path(work.merged_into_id, extension))  # a merge can be undone
    work.page_topics = [wt.topic for wt in work.work_topics.select_related("topic")]
    response = HttpResponse(render_export(work), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{exports.filename(work, extension)}"'
    return response


def _export_path(pk: int, extension: str) -> str:
    return reverse(f"publications:work-export-{extension}", kwargs={"pk": pk})


@conditional(work_records)
def work_export_bibtex(request: HttpRequest, pk: int) -> HttpResponse:
    """The work as a BibTeX entry, downloaded as a .bib file."""
    return _export(pk, exports.to_bibtex, exports.BIBTEX_CONTENT_TYPE, "bib")


@conditional(work_records)
def work_export_ris(request: HttpRequest, pk: int) -> HttpResponse:
    """The work as a RIS record, downloaded as a .ris file."""
    return _export(pk, exports.to_ris, exports.RIS_CONTENT_TYPE, "ris")


@dataclass(frozen=True)
class ExternalId:
    label: str
    example: str
    source_name: str
    source_url: Callable[[str], str]  # the normalised id's address at its source
    normalise: Callable[[str], str | None]
    lookup: Callable[[str], Q]
    # The source whose imported records are keyed by this id: a record merged into
    # another work (a preprint and its published version) still finds that work.
    record_source: str = ""


def _arxiv_lookup(arxiv_id: str) -> Q:
    return Q(arxiv_id=arxiv_id) | Q(doi=f"10.48550/arxiv.{arxiv_id}")


def _doi_lookup(doi: str) -> Q:
    arxiv_id = identifiers.arxiv_id_from_doi(doi)
    return Q(doi=doi) | Q(arxiv_id=arxiv_id) if arxiv_id else Q(doi=doi)


def _openalex_work_id(value: str) -> str | None:
    short = identifiers.normalize_openalex_id(value)
    return short if short and short.startswith("W") else None


WORK_IDS = {
    "doi": ExternalId(
        "DOI",
        "10.1145/3503222.3507778",
        "doi.org",
        identifiers.doi_url,
        identifiers.normalize_doi,
        _doi_lookup,
    ),
    "arxiv": ExternalId(
        "arXiv id",
        "2102.04285 or hep-th/9901001v2",
        "arXiv",
        lambda arxiv_id: f"https://arxiv.org/abs/{arxiv_id}",
        identifiers.normalize_arxiv_id,
        _arxiv_lookup,
        Source.ARXIV,
    ),
    "openalex": ExternalId(
        "OpenAlex id",
        "W2741809807",
        "OpenAlex",
        identifiers.openalex_url,
        _openalex_work_id,
        lambda short: Q(openalex_id=short),
        Source.OPENALEX,
    ),
}


def _work_by_id(kind: ExternalId, normalised: str) -> Work | None:
    """The work holding this id, followed through merges to the record that lives on."""
    matches = Work.objects.filter(kind.lookup(normalised))
    work = matches.order_by(F("merged_into").asc(nulls_first=True), "id").first()
    if work is None and kind.record_source:
        record = SourceRecord.objects.filter(
            source=kind.record_source,
            entity=SourceRecord.Entity.WORK,
            external_id=normalised,
            work__isnull=False,
        ).first()
        work = record.work if record else None
    for _hop in range(MAX_MERGE_HOPS):  # a merged record points to the one it went into
        if work is None or not work.merged_into_id:
            break
        work = work.merged_into
    return work


def work_by_external_id(request: HttpRequest, scheme: str, value: str) -> HttpResponse:
    """Redirect a DOI, arXiv or OpenAlex address to our page, or say why there is none."""
    kind = WORK_IDS[scheme]
    normalised = kind.normalise(value)
    if normalised:
        work = _work_by_id(kind, normalised)
        if work is not None:
            return redirect(work)
    context = {
        "what": "work",
        "label": kind.label,
        "value": normalised or value,
        "valid": bool(normalised),
        "source_url": kind.source_url(normalised) if normalised else "",
        "source_name": kind.source_name,
        "example": kind.example,
        "search_query": normalised or value,
    }
    return render(request, "identifier_not_found.html", context, status=404)

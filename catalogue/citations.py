"""Reads of citation links: a work's references and the works here that cite it.

Both lists are paged and cost a fixed number of queries whatever their length.
A link names the cited work by its OpenAlex id; ``cited`` is our work when we
hold it (see ingestion.ingest.citations).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Case, Count, F, Q, QuerySet, Value, When

from catalogue.models import Citation, Work

REFERENCES_PER_PAGE = 25
CITED_BY_PER_PAGE = 10


@dataclass
class References:
    total: int  # every work the record lists
    on_site: int  # of them, the works held here
    page: Page  # of Citation rows: held works first, newest first, then the rest by id
    known: bool = True  # whether a source listed the work's references at all


@dataclass
class CitedBy:
    on_site: int  # works held here that cite the work
    per_source: int | None  # the source's count (None: not known)
    page: Page  # of Works, newest first


def _paged(rows: QuerySet, total: int, number: object, per_page: int) -> Page:
    paginator = Paginator(rows, per_page)
    paginator.count = total  # already counted: spare the page its own COUNT query
    return paginator.get_page(number)


def reference_rows(work: Work) -> QuerySet[Citation]:
    """The work's references: the held ones first (newest first), then the rest by id."""
    missing = Case(When(cited__isnull=True, then=Value(1)), default=Value(0))
    return (
        Citation.objects.filter(citing=work)
        .select_related("cited")
        .annotate(missing=missing)
        .order_by(
            "missing",
            F("cited__publication_date").desc(nulls_last=True),
            "cited_openalex_id",
        )
    )


def work_references(
    work: Work, *, page: object = 1, per_page: int = REFERENCES_PER_PAGE
) -> References:
    """The references of ``work`` (one page), with how many there are and how many we hold.

    A work read by ``selectors.work_for_page`` says whether it lists any: if not, none
    are read.
    """
    if getattr(work, "has_references", True):
        counts = Citation.objects.filter(citing=work).aggregate(
            total=Count("pk"), on_site=Count("pk", filter=Q(cited__isnull=False))
        )
        rows = reference_rows(work)
    else:
        counts, rows = {"total": 0, "on_site": 0}, Citation.objects.none()
    page_ = _paged(rows, counts["total"], page, per_page)
    known = references_known(work, counts["total"])
    return References(counts["total"], counts["on_site"], page_, known)


def references_known(work: Work, total: int) -> bool:
    """Whether a source listed the work's references (none listed is then a count of 0).

    OpenAlex is the one source that lists them: of a work no OpenAlex record
    describes, the references are not known, not none.
    """
    return bool(total or work.openalex_id)


def citing_works(work: Work) -> QuerySet[Work]:
    """Works held here that cite ``work`` (or a record merged into it), newest first."""
    cites = Q(references__cited=work) | Q(references__cited__merged_into=work)
    ids = Work.objects.visible().filter(cites).exclude(pk=work.pk).values("pk")
    return Work.objects.filter(pk__in=ids).order_by(
        F("publication_date").desc(nulls_last=True), "-id"
    )


def listed(references: References, cited_by: CitedBy) -> list[int]:
    """The works held here on the shown pages of both lists (before their rows are read)."""
    cited = references.page.object_list.values_list("cited_id", flat=True)
    citing_rows = cited_by.page.object_list
    # A page may hold the ids alone (``ids``), the works read only when needed.
    if hasattr(citing_rows, "ids"):
        citing = citing_rows.ids
    else:
        citing = citing_rows.values_list("pk", flat=True)
    return [pk for pk in (*cited, *citing) if pk]


def work_cited_by(work: Work, *, page: object = 1, per_page: int = CITED_BY_PER_PAGE) -> CitedBy:
    """The works here that cite ``work`` (one page), and both counts.

    The page holds the works' rows alone: a list shows kept entries, and reads the
    bylines of a work only to draw an entry that is not kept. A work read by
    ``selectors.work_for_page`` says whether any link names it: if not, none is read.
    """
    cited = getattr(work, "has_citers", True) or getattr(work, "has_merged_citers", True)
    rows = citing_works(work) if cited else Work.objects.none()  # work_for_page said: none
    total = rows.count() if cited else 0
    return CitedBy(total, work.cited_by_count, _paged(rows, total, page, per_page))

"""Reads shared by pages and the API."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.core.exceptions import FieldDoesNotExist
from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    Count,
    F,
    Max,
    Prefetch,
    Q,
    QuerySet,
    When,
    Window,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import RowNumber
from django.shortcuts import get_object_or_404

from catalogue import byline_reads
from catalogue.dates import PartialDate
from catalogue.models import (
    Author,
    Authorship,
    Citation,
    Grant,
    Source,
    SourceRecord,
    Topic,
    UnlinkedAuthorship,
    Work,
    WorkSimilarity,
    WorkTopic,
)


def works_with_authors(
    queryset: QuerySet[Work],
    *,
    names: int | None = byline_reads.LISTED,
    author: Author | None = None,
) -> QuerySet[Work]:
    """Works with their venue and ordered byline (``Work.byline``) in a fixed number of queries.

    A list reads each work's first ``names`` names, as many as an entry shows (and
    ``author``'s authorship, wherever it stands), and ``Work.byline_length`` counts
    them all: a collaboration's thousands of names cost no more than a few.
    ``names=None`` reads whole bylines (exports).
    """
    queryset = queryset.select_related("venue")
    if names is not None:
        firsts = byline_reads.first_names(names, author_id=author.pk if author else None)
        return byline_reads.with_total(queryset).prefetch_related(*firsts)
    authorships = Authorship.objects.select_related("author").order_by("position")
    return queryset.prefetch_related(
        Prefetch("authorships", queryset=authorships), "unlinked_authorships"
    )


def recent_works(*, limit: int = 10) -> list[int]:
    """The ids of the works imported last: a list shows their kept entries."""
    recent = Work.objects.visible().order_by("-created_at", "-id")
    return list(recent.values_list("pk", flat=True)[:limit])


def recent_authors(*, limit: int = 10) -> list[Author]:
    """Recently imported researchers: records a source identifies first, newest first.

    A record with an OpenAlex id or an ORCID is a researcher an import was about; a
    name-only record comes from someone's byline, so it does not push them aside.
    """
    identified = Q(openalex_id__isnull=False) | Q(orcid__isnull=False)
    return list(
        Author.objects.visible()
        .select_related("last_known_institution", "metrics")
        .annotate(named_only=Case(When(identified, then=0), default=1))
        .order_by("named_only", "-created_at", "-id")[:limit]
    )


def author_works(author: Author, *, names: int | None = byline_reads.LISTED) -> QuerySet[Work]:
    """The author's works, newest first, read as ``works_with_authors`` reads them."""
    works = Work.objects.visible().filter(authorships__author=author)
    return works_with_authors(
        works.order_by("-publication_date", "-id"), names=names, author=author
    )


# The work page ----------------------------------------------------------------


@dataclass
class Byline:
    """One author of a work as the work page shows them."""

    name: str
    author: Author | None  # None when there is no public record to link to
    affiliations: list[int]  # 1-based numbers into WorkPage.affiliations
    is_corresponding: bool = False
    link: LinkFacts | None = None  # None when no record holds this position


@dataclass(frozen=True)
class LinkFacts:
    """Where the link between an author record and a work came from, and how sure it is."""

    source: str  # a Source label: "OpenAlex", "arXiv", "Claim by the researcher", "Staff"
    confidence: float

    @property
    def percent(self) -> int:
        return round(self.confidence * 100)

    @property
    def sentence(self) -> str:
        return f"Linked by {self.source}, {self.percent}% confidence"


def link_facts(authorship) -> LinkFacts:
    """The source and confidence of one author–work link (an Authorship)."""
    label = Source(authorship.source).label if authorship.source in Source.values else "unknown"
    return LinkFacts(label, authorship.confidence)


@dataclass(frozen=True)
class Affiliation:
    """A place on a work's byline, and where it came from."""

    name: str
    source: str  # "from the OpenAlex institution record", "as written in the arXiv record"
    url: str = ""  # our institution page, when the place is an institution record

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Funding:
    """A funder of a work and the first of its award ids."""

    funder: str
    awards: list[str]
    awards_total: int

    @property
    def awards_left_out(self) -> int:
        return self.awards_total - len(self.awards)


@dataclass
class WorkPage:
    work: Work
    bylines: list[Byline]
    affiliations: list[Affiliation]
    topics: list[Topic]
    funding: list[Funding]
    sources: dict[str, str]  # field name -> label of the source that set it
    dates: list[tuple[str, PartialDate, str]] = field(default_factory=list)  # label, day, source
    provenance: list[tuple[str, str]] = field(default_factory=list)  # fact, source label
    embargo_active: bool = False
    bylines_left_out: int = 0  # names between the shown ones and the last (a long byline)
    byline: byline_reads.Window | None = None  # the byline's length; the page of a whole one
    topics_left_out: int = 0
    funders_left_out: int = 0
    counted_at: datetime | None = None  # when the source of the citation count said it


# Names a work page shows of a long byline (a large collaboration's runs to thousands):
# the first ones and the last; the page links to the whole list, read a page at a time.
BYLINES_SHOWN = 100
BYLINE_PAGE = 500
# A work's other lists are shown as far as these and counted beyond.
TOPICS_SHOWN = 40
FUNDERS_SHOWN = 20
AWARDS_SHOWN = 20  # award ids of each funder

FACT_LABELS = {
    "source_created_date": "Created",
    "source_updated_at": "Updated",
    "publication_year": "Year",
    "cited_by_count": "Citation count",
    "counts_by_year": "Citations per year",
    "is_open_access": "Open access",
    "pdf_url": "PDF link",
    "code_url": "Code link",
    "landing_url": "Publisher page",
}


def _fact_label(name: str) -> str:
    if name in FACT_LABELS:
        return FACT_LABELS[name]
    try:
        verbose = str(Work._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        verbose = name.replace("_", " ")
    return verbose[:1].upper() + verbose[1:]


def _dropped_notes(work: Work, labels: dict) -> list[tuple[str, str]]:
    """("PDF URL", "not kept from OpenAlex: not an http(s) address") for each value dropped."""
    notes = work.provenance.get("dropped")
    found = []
    for name, note in (notes if isinstance(notes, dict) else {}).items():
        if isinstance(note, dict):
            source = labels.get(note.get("source"), note.get("source") or "a source")
            label = _fact_label(name) if "." not in name else name.replace("_", " ").capitalize()
            found.append((label, f"not kept from {source}: {note.get('reason', '')}"))
    return found


def work_for_page(pk: int) -> Work:
    """The work with its venue, or Http404 (``work_page`` reads the names it shows).

    With whether any reference, citing link, grant or name no record holds names it
    (``has_references``, ``has_citers``, ``has_merged_citers``, ``has_grants``,
    ``has_unlinked``): a list it has none of is not read.
    """
    return get_object_or_404(_PAGE_WORKS, pk=pk)


def works_for_page(pks: Iterable[int]) -> list[Work]:
    """The works of ``pks`` still shown (not merged away), each read as ``work_for_page``
    reads it, in id order."""
    return list(_PAGE_WORKS.filter(pk__in=list(pks), merged_into__isnull=True).order_by("pk"))


def _exists(model, where: str, join: str = "") -> RawSQL:
    """Whether a row of ``model`` meets ``where`` (``r`` the row, ``{work}`` the work
    read): in plain SQL, as ``Exists`` of a queryset costs more to build than to run."""
    quote = connection.ops.quote_name
    work = f"{quote(Work._meta.db_table)}.{quote('id')}"
    table = quote(model._meta.db_table)
    sql = f"EXISTS (SELECT 1 FROM {table} r {join} WHERE {where})"  # noqa: S608 - quoted names
    return RawSQL(sql.format(work=work), [], output_field=BooleanField())  # noqa: S611 - no values


# Built once (a queryset is cloned, never run, here).
_PAGE_WORKS = Work.objects.select_related("venue").annotate(
    has_references=_exists(Citation, "r.citing_id = {work}"),
    has_citers=_exists(Citation, "r.cited_id = {work}"),
    has_merged_citers=_exists(
        Citation,
        "m.merged_into_id = {work}",
        join=f"JOIN {connection.ops.quote_name(Work._meta.db_table)} m ON m.id = r.cited_id",
    ),
    has_grants=_exists(Grant, "r.work_id = {work}"),
    has_unlinked=_exists(UnlinkedAuthorship, "r.work_id = {work}"),
)


def work_with_byline(pk: int) -> Work:
    """The work with its venue and whole byline (``Work.byline``), or Http404."""
    return get_object_or_404(works_with_authors(Work.objects.all(), names=None), pk=pk)


def _places(authorship) -> list[Affiliation]:
    """The authorship's institutions, else the affiliation text its source record gave."""
    label = Source(authorship.source).label if authorship.source in Source.values else "source"
    from_record = "from the OpenAlex institution record"
    places = [
        Affiliation(i.name, from_record, i.get_absolute_url())
        for i in authorship.institutions.all()
    ]
    if not places and authorship.raw_affiliation:
        written = f"as written in the {label} record"
        places = [
            Affiliation(p.strip(), written)
            for p in authorship.raw_affiliation.split(";")
            if p.strip()
        ]
    return places


def _bylines(entries: list) -> tuple[list[Byline], list[Affiliation]]:
    """The bylines of ``entries`` and the affiliations they mark, numbered in order."""
    affiliations: list[Affiliation] = []
    numbers: dict[str, int] = {}
    bylines = []
    for entry in entries:
        if not isinstance(entry, Authorship):  # a name no record holds
            bylines.append(Byline(entry.raw_name, None, []))
            continue
        marks = []
        for place in _places(entry):
            if place.name not in numbers:
                affiliations.append(place)
                numbers[place.name] = len(affiliations)
            marks.append(numbers[place.name])
        author = entry.author
        public = author if not author.is_deleted else None
        # The name as the source printed it, unless the link is certain (the source's own
        # author id, a claim, staff): a record found by name alone may carry another name.
        printed = entry.raw_name if entry.confidence < 1 else ""
        name = printed or (author.display_name if public else "") or entry.raw_name
        name = name or "Unknown author"
        link = link_facts(entry) if public else None
        bylines.append(Byline(name, public, sorted(set(marks)), entry.is_corresponding, link))
    return bylines, affiliations


def _topics(work: Work) -> tuple[list[Topic], int]:
    """The first ``TOPICS_SHOWN`` topics (primary first, then by score), and how many more.

    Read in plain SQL: the ORM's query costs more to build than to run.
    """
    topics = list(Topic.objects.raw(_topics_sql(), [work.pk, TOPICS_SHOWN + 1]))
    if len(topics) <= TOPICS_SHOWN:
        return topics, 0
    return topics[:TOPICS_SHOWN], WorkTopic.objects.filter(work=work).count() - TOPICS_SHOWN


def _topics_sql() -> str:
    quote = connection.ops.quote_name
    topics, links = quote(Topic._meta.db_table), quote(WorkTopic._meta.db_table)
    return f"""
        SELECT t.* FROM {links} wt JOIN {topics} t ON t.id = wt.topic_id
        WHERE wt.work_id = %s ORDER BY wt.is_primary DESC, wt.score DESC, wt.id LIMIT %s
    """  # noqa: S608 - quoted names of the models' tables, values as parameters


def _funding(work: Work) -> tuple[list[Funding], int]:
    """The first ``FUNDERS_SHOWN`` funders by name with their first award ids, and how many more."""
    if not getattr(work, "has_grants", True):  # read by work_for_page: no grant names it
        return [], 0
    grants = Grant.objects.filter(work=work)
    named = ~Q(award_id="")
    per_funder = (
        grants.values("funder__name")
        .annotate(awards=Count("pk", filter=named))
        .order_by("funder__name")
    )
    funders = list(per_funder[: FUNDERS_SHOWN + 1])
    left_out = per_funder.count() - FUNDERS_SHOWN if len(funders) > FUNDERS_SHOWN else 0
    funders = funders[:FUNDERS_SHOWN]
    rank = Window(RowNumber(), partition_by=[F("funder__name")], order_by=["award_id", "id"])
    firsts = (
        grants.filter(named, funder__name__in=[f["funder__name"] for f in funders])
        .annotate(rank=rank)
        .filter(rank__lte=AWARDS_SHOWN)
        .order_by("award_id", "id")
        .values_list("funder__name", "award_id")
    )
    awards: dict[str, list[str]] = {}
    for name, award in firsts:
        awards.setdefault(name, []).append(award)
    lines = [
        Funding(f["funder__name"], awards.get(f["funder__name"], []), f["awards"]) for f in funders
    ]
    return lines, left_out


def _dates(work: Work, sources: dict[str, str]) -> list[tuple[str, PartialDate, str]]:
    """Published (as precisely as its source gives it), then created, then updated.

    Created and updated are a pair from one source: an update another source
    dates, or one earlier than the creation, is not shown beside it.
    """
    found = []
    if published := work.published:
        found.append(("Published", published, sources.get("publication_date", "")))
    created, created_from = work.source_created_date, sources.get("source_created_date", "")
    if not created and work.arxiv_created:
        # arXiv's publication date is the day the first version was submitted: its "created".
        created, created_from = work.arxiv_created, Source.ARXIV.label
    if created:
        found.append(("Created", PartialDate.of(created, None), created_from))
    updated = work.source_updated_at.date() if work.source_updated_at else None
    updated_from = sources.get("source_updated_at", "")
    if updated and created:
        other_source = created_from and updated_from and updated_from != created_from
        updated = None if other_source or updated <= created else updated
    if updated:
        found.append(("Updated", PartialDate.of(updated, None), updated_from))
    return found


def count_as_of(work: Work) -> datetime | None:
    """When the source of the work's citation count last updated the record it counted in.

    The work's own ``source_updated_at`` when that record set both; else the latest
    record of the count's source held for the work. None when the count is not known.
    """
    source = work.provenance.get("cited_by_count")
    if work.cited_by_count is None or not isinstance(source, str):
        return None
    if work.provenance.get("source_updated_at") == source:
        return work.source_updated_at
    records = SourceRecord.objects.filter(work=work, source=source)
    return records.aggregate(latest=Max("source_updated_at"))["latest"]


SIMILAR_SHOWN = 5  # matches a work page shows
# What a "More like this" entry shows (publications/_similar_list.html): the rows read no more.
SIMILAR_FIELDS = (
    "work_id",
    "score",
    "reasons",
    *(
        f"similar__{name}"
        for name in ("title", "type", "publication_year", "abstract", "merged_into_id")
    ),
    "similar__venue__name",
)
SIMILAR_AUTHORSHIP_FIELDS = (
    "work_id",
    "position",
    "raw_name",
    "author__display_name",
    "author__is_deleted",
)


def similar_lists(work_ids: list[int], *, limit: int = SIMILAR_SHOWN) -> dict[int, list]:
    """The stored "More like this" matches of each of ``work_ids`` (those with any), best
    first, with venues and first authors, in two queries whatever the number of works.

    Each similar work carries ``first_authorships``: its first four, enough to show
    three and say whether there are more.
    """
    if not work_ids:
        return {}
    rank = Window(RowNumber(), partition_by=[F("work_id")], order_by=_SIMILAR_ORDER)
    links = _SIMILAR_LINKS.filter(work_id__in=work_ids).annotate(rank=rank)
    lists: dict[int, list[WorkSimilarity]] = {}
    shown: dict[int, list[Work]] = {}
    for link in links.filter(rank__lte=limit).order_by("work_id", *_SIMILAR_ORDER):
        lists.setdefault(link.work_id, []).append(link)
        link.similar.first_authorships = []
        shown.setdefault(link.similar_id, []).append(link.similar)
    if shown:
        rows = _FIRST_AUTHORS.filter(work_id__in=list(shown))
        for authorship in byline_reads.firsts(rows, 4).order_by("position", "id"):
            for other in shown[authorship.work_id]:
                other.first_authorships.append(authorship)
    return lists


# Built once (querysets are cloned, never run, here).
_SIMILAR_ORDER = (F("score").desc(), F("similar_id").asc())
_FIRST_AUTHORS = Authorship.objects.select_related("author").only(*SIMILAR_AUTHORSHIP_FIELDS)
_SIMILAR_LINKS = (
    WorkSimilarity.objects.filter(similar__merged_into__isnull=True)
    .select_related("similar__venue")
    .only(*SIMILAR_FIELDS)
)


def work_page(
    work: Work,
    *,
    today: date,
    all_authors: bool = False,
    authors_page: int = 1,
) -> WorkPage:
    """Everything the work page shows, in a fixed number of queries whatever the work's size.

    A byline past ``BYLINES_SHOWN`` names shows its first names and its last, and
    says how many it leaves out; with ``all_authors``, page ``authors_page`` of the
    whole byline, ``BYLINE_PAGE`` names a page. Topics and funders are shown as
    far as ``TOPICS_SHOWN`` and ``FUNDERS_SHOWN`` and counted beyond. The "More like
    this" matches are read by ``similar_lists``: a page keeps them drawn.
    """
    labels = dict(Source.choices)
    sources = {
        name: labels.get(source, source)
        for name, source in work.provenance.items()
        if isinstance(source, str)  # "dropped" holds notes, not a source
    }
    if all_authors:
        window = byline_reads.byline_page(work, authors_page, BYLINE_PAGE)
    else:
        window = byline_reads.first_and_last(work, BYLINES_SHOWN)
    bylines, affiliations = _bylines(window.entries)
    topics, topics_left_out = _topics(work)
    funding, funders_left_out = _funding(work)
    return WorkPage(
        work=work,
        bylines=bylines,
        bylines_left_out=0 if all_authors else window.total - len(window.entries),
        byline=window,
        affiliations=affiliations,
        topics=topics,
        topics_left_out=topics_left_out,
        funding=funding,
        funders_left_out=funders_left_out,
        sources=sources,
        dates=_dates(work, sources),
        embargo_active=bool(work.embargo_until and work.embargo_until > today),
        counted_at=count_as_of(work),
        provenance=[(_fact_label(name), label) for name, label in sources.items()]
        + _dropped_notes(work, labels),
    )

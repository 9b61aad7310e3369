"""Reads shared by pages and the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Case, Prefetch, Q, QuerySet, When, prefetch_related_objects
from django.shortcuts import get_object_or_404

from publications.models import Author, Authorship, Source, Topic, Work, WorkSimilarity


def works_with_authors(queryset: QuerySet[Work]) -> QuerySet[Work]:
    """Works with their venue and ordered byline (``Work.byline``) in a fixed number of queries."""
    authorships = Authorship.objects.select_related("author").order_by("position")
    return queryset.select_related("venue").prefetch_related(
        Prefetch("authorships", queryset=authorships), "unlinked_authorships"
    )


def recent_works(*, limit: int = 10) -> list[Work]:
    return list(works_with_authors(Work.objects.visible().order_by("-created_at", "-id"))[:limit])


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


def author_works(author: Author) -> QuerySet[Work]:
    return works_with_authors(
        Work.objects.visible()
        .filter(authorships__author=author)
        .order_by("-publication_date", "-id")
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


@dataclass
class WorkPage:
    work: Work
    bylines: list[Byline]
    affiliations: list[Affiliation]
    topics: list[Topic]
    funding: list[tuple[str, list[str]]]  # funder name, award ids
    similar: list[WorkSimilarity]
    sources: dict[str, str]  # field name -> label of the source that set it
    dates: list[tuple[str, date, str]] = field(default_factory=list)  # label, day, source
    provenance: list[tuple[str, str]] = field(default_factory=list)  # fact, source label
    embargo_active: bool = False
    bylines_left_out: int = 0  # names between the shown ones and the last (a long byline)


# Names a work page shows of a long byline (a large collaboration's runs to thousands):
# the first ones and the last; the page links to the whole list.
BYLINES_SHOWN = 100

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
    """The work with its venue and authors (with their affiliations), or Http404."""
    authorships = (
        Authorship.objects.select_related("author")
        .prefetch_related("institutions")
        .order_by("position", "id")
    )
    queryset = Work.objects.select_related("venue").prefetch_related(
        Prefetch("authorships", queryset=authorships), "unlinked_authorships"
    )
    return get_object_or_404(queryset, pk=pk)


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


def _bylines(work: Work, *, shown: int | None) -> tuple[list[Byline], list[Affiliation], int]:
    """The bylines shown, the affiliations they mark, and how many names are left out.

    With ``shown``, a longer byline (a large collaboration's) keeps its first
    ``shown`` names and its last; the affiliations are those of the names shown.
    """
    entries = _byline_entries(work)
    left_out = 0
    if shown is not None and len(entries) > shown + 1:
        left_out = len(entries) - shown - 1
        entries = entries[:shown] + entries[-1:]
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
        name = (author.display_name if public else "") or entry.raw_name or "Unknown author"
        link = link_facts(entry) if public else None
        bylines.append(Byline(name, public, sorted(set(marks)), entry.is_corresponding, link))
    return bylines, affiliations, left_out


def _byline_entries(work: Work) -> list:
    """Authorships and the names no record holds (UnlinkedAuthorship), in byline order."""
    placed = [(a.position, a) for a in work.authorships.all()]
    taken = {position for position, _ in placed}
    for unlinked in work.unlinked_authorships.all():
        if unlinked.position not in taken:
            taken.add(unlinked.position)
            placed.append((unlinked.position, unlinked))
    return [entry for _, entry in sorted(placed, key=lambda pair: pair[0])]


def _dates(work: Work, sources: dict[str, str]) -> list[tuple[str, date, str]]:
    found = []
    if work.publication_date:
        found.append(("Published", work.publication_date, sources.get("publication_date", "")))
    if work.source_created_date:
        found.append(("Created", work.source_created_date, sources.get("source_created_date", "")))
    elif work.publication_date and work.provenance.get("publication_date") == Source.ARXIV:
        # arXiv's publication date is the day the first version was submitted: its "created".
        found.append(("Created", work.publication_date, Source.ARXIV.label))
    if work.source_updated_at:
        found.append(
            ("Updated", work.source_updated_at.date(), sources.get("source_updated_at", ""))
        )
    return found


def similar_works(work: Work, *, limit: int = 5) -> list[WorkSimilarity]:
    """The stored "More like this" matches, best first, with venues and first authors.

    Each similar work carries ``first_authorships``: its first four, enough to show
    three and say whether there are more.
    """
    first_authors = Authorship.objects.select_related("author").order_by("position", "id")[:4]
    links = list(
        WorkSimilarity.objects.filter(work=work, similar__merged_into__isnull=True)
        .select_related("similar__venue")
        .order_by("-score", "similar_id")[:limit]
    )
    prefetch_related_objects(
        [link.similar for link in links],
        Prefetch("authorships", queryset=first_authors, to_attr="first_authorships"),
    )
    return links


def work_page(work: Work, *, today: date, all_authors: bool = False) -> WorkPage:
    """Everything the work page shows, in a fixed number of queries whatever the author count.

    A byline past ``BYLINES_SHOWN`` names shows its first names and its last, and
    says how many it leaves out, unless ``all_authors``.
    """
    labels = dict(Source.choices)
    sources = {
        name: labels.get(source, source)
        for name, source in work.provenance.items()
        if isinstance(source, str)  # "dropped" holds notes, not a source
    }
    bylines, affiliations, left_out = _bylines(work, shown=None if all_authors else BYLINES_SHOWN)
    topics = [
        wt.topic
        for wt in work.work_topics.select_related("topic").order_by("-is_primary", "-score", "id")
    ]
    funding: dict[str, list[str]] = {}
    for grant in work.grants.select_related("funder").order_by("funder__name", "award_id"):
        awards = funding.setdefault(grant.funder.name, [])
        if grant.award_id:
            awards.append(grant.award_id)
    return WorkPage(
        work=work,
        bylines=bylines,
        bylines_left_out=left_out,
        affiliations=affiliations,
        topics=topics,
        funding=list(funding.items()),
        similar=similar_works(work),
        sources=sources,
        dates=_dates(work, sources),
        embargo_active=bool(work.embargo_until and work.embargo_until > today),
        provenance=[(_fact_label(name), label) for name, label in sources.items()]
        + _dropped_notes(work, labels),
    )

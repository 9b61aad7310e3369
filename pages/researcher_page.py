"""Everything the researcher page shows, gathered for its view.

``researcher_facts`` returns what the page shows of the record itself (drawn ahead
and kept: ``pages.researcher_summaries``), ``researcher_page`` its works as every
visitor sees them for a query string: both are kept in the cache for all visitors
(``pages.cache.shared_page``). ``researcher_viewer`` is the visitor's own side
(follow, claim and collaboration panels), drawn for each. All are plain
dataclasses; the page's template and its partials only render them. The page sits
above every app it shows, so it names each section's builder itself (``SECTIONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Count, QuerySet, Window
from django.http import QueryDict
from django.shortcuts import get_object_or_404
from django.urls import reverse

from catalogue.filters import Sort, WorkFilter
from catalogue.identifiers import openalex_is_local, openalex_url
from catalogue.models import Author, AuthorMetrics, ImportRun, Source, Work
from catalogue.novelty import NoveltyBasis, novelty_basis
from catalogue.permissions import ADD, admin_allows
from pages.charts import Chart, citations_chart
from pages.maybe_you import MaybeYou, these_may_be_you
from profiles.claims.services import HOLDER_READ, claim_panel_state, holder_read
from profiles.claims.services import PanelState as ClaimPanel
from profiles.collaboration.forms import InvitationForm
from profiles.collaboration.selectors import PanelState as CollaborationPanel
from profiles.collaboration.selectors import collaboration_panel_state
from profiles.following.services import FOLLOWERS_READ, FollowState, follow_state, followers_read
from profiles.models import Profile
from search.matches import WorksById
from trust.panels import trust_panel

WORKS_PER_PAGE = 20
AFFILIATIONS_SHOWN = 5  # the rest of the history is behind a <details>
PAGES_COUNTED_ALONG = 100_000  # a page further than this is read as Paginator reads it

SectionBuilder = Callable[[Author], object]
# The sections other apps draw for every researcher page, by the name templates use.
SECTIONS: dict[str, SectionBuilder] = {"trust": trust_panel}


@dataclass(frozen=True)
class SourceCounts:
    """The source's own counts for the whole record (its author record), dated, beside
    what is held here: none of them is ours, and ``held`` is the only count that is."""

    source: str  # the source's name, "OpenAlex"
    as_of: datetime | None  # when the source last updated the record it counted in
    works: int | None
    citations: int | None
    h_index: int | None
    i10_index: int | None
    mean_citedness: float | None
    topics: int | None
    held: int  # works held here
    chart: Chart | None  # citations per year as the source counts them

    @property
    def works_missing(self) -> bool:
        """The source counts more works than are held here: its figures lead."""
        return self.works is not None and self.held < self.works


def source_counts(author: Author, metrics: AuthorMetrics | None) -> SourceCounts | None:
    """What the source's author record counts, or None when it gave nothing usable."""
    values = (
        author.source_works_count,
        author.source_cited_by_count,
        author.source_h_index,
        author.source_i10_index,
        author.source_mean_citedness,
        author.source_topics_count,
    )
    if not author.counts_source or all(value is None for value in values):
        return None
    by_year = {
        str(entry["year"]): entry["citations"]
        for entry in author.source_counts_by_year or []
        if isinstance(entry, dict) and entry.get("citations") is not None
    }
    return SourceCounts(
        Source(author.counts_source).label if author.counts_source in Source.values else "",
        author.counts_as_of,
        *values,
        held=metrics.works_count if metrics else 0,
        chart=citations_chart(by_year),
    )


@dataclass(frozen=True)
class Affiliation:
    """One place in the researcher's affiliation history, with where it comes from."""

    id: int
    name: str
    years: str  # "2019–2023" as the author record gives them, or ""
    current: bool
    sources: list[str]


SOURCE_WORDS = {
    Source.CLAIM: "added by the researcher",
    Source.STAFF: "added by staff",
}


def _affiliations(metrics: AuthorMetrics | None) -> list[Affiliation]:
    return [_affiliation(entry) for entry in (metrics.institutions_list if metrics else [])]


def _affiliation(entry: dict) -> Affiliation:
    sources = []
    origin = entry.get("source")
    if entry.get("record"):
        label = Source(origin).label if origin in Source.values else "the source"
        sources.append(f"{label} author record")
    elif origin in SOURCE_WORDS:
        sources.append(SOURCE_WORDS[origin])
    works = entry.get("byline_works") or 0
    if works:
        span = _span(entry.get("byline_first"), entry.get("byline_last"))
        noun = "work" if works == 1 else "works"
        sources.append(f"bylines of {works} {noun} held here" + (f", {span}" if span else ""))
    if not sources and origin in Source.values:
        sources.append(Source(origin).label)
    return Affiliation(
        id=entry.get("id") or 0,
        name=entry.get("name") or "",
        years=_span(entry.get("first"), entry.get("last")),
        current=bool(entry.get("current")),
        sources=sources,
    )


def _span(first: object, last: object) -> str:
    if not isinstance(first, int) or not isinstance(last, int):
        return ""
    return f"{first}" if first == last else f"{first}–{last}"


@dataclass(frozen=True)
class ResearcherFacts:
    """What the page shows of the record itself, the same whatever its query string:
    drawn ahead and kept (``pages.researcher_summaries``)."""

    author: Author
    profile: Profile | None
    metrics: AuthorMetrics | None
    chart: Chart | None
    source_counts: SourceCounts | None
    affiliations: list[Affiliation]  # the first ones of the whole history
    affiliations_more: list[Affiliation]  # the rest, behind a <details>
    identifiers: dict
    # Novelty with what it compares against, counted when the page is drawn.
    novelty: NoveltyBasis | None
    # What other apps add, by name (the trust app: "trust", its snapshot).
    sections: dict[str, object]


@dataclass(frozen=True)
class ResearcherPage:
    """The page's works, filtered, sorted and paged as the query string asks, and what
    the rest of the page around them says of the record."""

    author: Author
    metrics: AuthorMetrics | None
    source_counts: SourceCounts | None
    filterset: WorkFilter
    filters_active: bool
    works: Page  # of a WorksById: the ids, the works read only if an entry is not kept
    pinned_works: WorksById  # the owner's pins lead the first page
    works_total: int
    sort_links: list[dict]
    topic_choices: list[dict]

    def shown_ids(self) -> list[int]:
        """The ids of the works listed, pinned first."""
        return [*self.pinned_works.ids, *self.works.object_list.ids]


def author_for_page(pk: int, *, in_full: bool = False) -> Author:
    """The author of a researcher page, or Http404: with its profile (what the viewer's
    panels need) or ``in_full``, with its metrics, last known institution and trust
    score too (what ``researcher_page`` shows). The search vector is left unread."""
    related = _IN_FULL if in_full else ("profile",)
    queryset = Author.objects.select_related(*related).defer("search_vector")
    return get_object_or_404(queryset.filter(is_deleted=False), pk=pk)


_IN_FULL = ("profile", "metrics", "last_known_institution", "trust")

# What a page shows of the record around its kept summary and works section: its
# head (the name, the figures its description gives, the place and ids its metadata
# names), the source's counts, and what the visitor's panels ask (the profile, the
# name block for "These may be you").
_AROUND_KEPT = (
    *("display_name", "orcid", "openalex_id", "merged_into", "is_deleted", "name_block"),
    *("counts_source", "counts_as_of", "source_counts_by_year", "source_works_count"),
    *("source_cited_by_count", "source_h_index", "source_i10_index", "source_mean_citedness"),
    *("source_topics_count", "profile", "metrics__works_count", "metrics__citations"),
    "last_known_institution__name",
)


def author_shown(pk: int) -> Author:
    """The author of a researcher page, or Http404, as the page shows it around what
    is kept of it (``_AROUND_KEPT``): a record read in full costs a page nobody asked
    for lately more than its kept parts do. ``in_full`` reads the rest to draw them."""
    related = ("profile", "metrics", "last_known_institution")
    queryset = Author.objects.select_related(*related).only(*_AROUND_KEPT)
    # What an anonymous visitor's panels show, read with the record: no query of their own.
    queryset = queryset.annotate(**_PANELS_READ)
    return get_object_or_404(queryset.filter(is_deleted=False), pk=pk)


_PANELS_READ = {FOLLOWERS_READ: followers_read(), HOLDER_READ: holder_read()}


def in_full(author: Author) -> Author:
    """``author`` as ``author_for_page(pk, in_full=True)`` reads it: itself if it was,
    else read once for the instance (its summary and works section may both be drawn)."""
    if Author.trust.is_cached(author) and author.get_deferred_fields() <= {"search_vector"}:
        return author
    full = getattr(author, _READ_IN_FULL, None)
    if full is None:
        full = author_for_page(author.pk, in_full=True)
        setattr(author, _READ_IN_FULL, full)
    return full


_READ_IN_FULL = "_read_in_full"


def authors_in_full(pks: list[int]) -> list[Author]:
    """The researchers of ``pks`` still shown (not deleted, not merged away), each read
    as ``author_for_page(pk, in_full=True)`` reads it."""
    shown = Author.objects.visible().filter(pk__in=pks).order_by("pk")
    return list(shown.select_related(*_IN_FULL).defer("search_vector"))


@dataclass(frozen=True)
class ResearcherViewer:
    """The viewer's side of the page."""

    follow: FollowState
    claim: ClaimPanel
    collaboration: CollaborationPanel
    invitation_form: InvitationForm | None
    works_import: WorksImport | None = None
    maybe_you: MaybeYou | None = None  # for the record's owner: "These may be you"


@dataclass(frozen=True)
class WorksImport:
    """For staff and the record's owner, while the source counts more works than are held
    here: how to import them (staff ask for an import run, the owner adds works)."""

    url: str
    staff: bool  # staff: the admin's "New import" form; else the owner's "Add a missing work"
    source: str  # the name of the source that counts them
    source_works: int
    held: int
    openalex_id: str


def works_import(*, author: Author, viewer) -> WorksImport | None:
    """The way in to import ``author``'s works, for a viewer who may, when works are missing."""
    wanted = author.source_works_count
    if not wanted or not getattr(viewer, "is_authenticated", False):
        return None
    staff = admin_allows(viewer, ADD, ImportRun)
    owner = getattr(getattr(author, "profile", None), "user_id", None) == viewer.pk
    if not (staff or owner):
        return None
    held = AuthorMetrics.objects.filter(author=author).values_list("works_count", flat=True)
    held = next(iter(held), 0)
    if held >= wanted:
        return None
    if staff:
        url = reverse("admin:publications_importrun_new_import")
    else:
        url = reverse("profiles:profile_edit", kwargs={"pk": author.pk}) + "#add-work"
    source = Source(author.counts_source).label if author.counts_source in Source.values else ""
    return WorksImport(url, staff, source, wanted, held, author.openalex_id or "")


def researcher_viewer(*, author: Author, viewer) -> ResearcherViewer:
    """The follow, claim and collaboration panels of ``author``'s page as ``viewer`` sees them.

    ``author`` comes with its profile selected.
    """
    collaboration = collaboration_panel_state(author=author, user=viewer)
    claim = claim_panel_state(author=author, user=viewer)
    return ResearcherViewer(
        follow=follow_state(author=author, user=viewer),
        claim=claim,
        collaboration=collaboration,
        invitation_form=InvitationForm() if collaboration.state == "can_invite" else None,
        works_import=works_import(author=author, viewer=viewer),
        maybe_you=these_may_be_you(author=author) if claim.mine_holds else None,
    )


def researcher_facts(author: Author) -> ResearcherFacts:
    """What the page of ``author`` shows of the record, whatever its query string.

    ``author`` comes from ``author_for_page(pk, in_full=True)``.
    """
    metrics = getattr(author, "metrics", None)
    history = _affiliations(metrics)
    return ResearcherFacts(
        author=author,
        profile=getattr(author, "profile", None),
        metrics=metrics,
        chart=citations_chart(metrics.citations_by_year) if metrics else None,
        source_counts=source_counts(author, metrics),
        affiliations=history[:AFFILIATIONS_SHOWN],
        affiliations_more=history[AFFILIATIONS_SHOWN:],
        identifiers=_identifiers(author),
        novelty=novelty_basis(author.pk, metrics) if metrics else None,
        sections={name: build(author) for name, build in SECTIONS.items()},
    )


def researcher_page(*, author: Author, query: QueryDict) -> ResearcherPage:
    """The works on the page of ``author`` as every visitor sees them for the query
    string ``query``.

    ``author`` comes from ``author_for_page(pk, in_full=True)``.
    """
    metrics = getattr(author, "metrics", None)
    listed = Work.objects.visible().filter(authorships__author=author)
    filterset = WorkFilter(query, queryset=listed)
    pinned = _pinned_works(getattr(author, "profile", None), filterset.qs)
    rest = filterset.qs.exclude(pk__in=pinned) if pinned else filterset.qs
    works = _works_page(rest, query.get("page"))
    return ResearcherPage(
        author=author,
        metrics=metrics,
        source_counts=source_counts(author, metrics),
        filterset=filterset,
        filters_active=filterset.active,
        works=works,
        pinned_works=WorksById(pinned if works.number == 1 else []),
        works_total=len(pinned) + works.paginator.count,
        sort_links=_sort_links(query, filterset.sort_value),
        topic_choices=_topic_choices(metrics, filterset),
    )


def _works_page(works: QuerySet[Work], number: object) -> Page:
    """The page ``number`` of the ids of ``works``, as ``Paginator.get_page`` gives it.

    The count is read beside the rows (a window over the whole list): one query
    for a page that exists, the usual two for any other.
    """
    paginator = Paginator(works.values_list("pk", flat=True), WORKS_PER_PAGE)
    try:
        wanted = int(number) if number is not None else 1
    except (TypeError, ValueError):
        wanted = 1  # as get_page: a page that is not a number is the first
    rows = []
    if 1 <= wanted <= PAGES_COUNTED_ALONG:
        start = (wanted - 1) * WORKS_PER_PAGE
        counted = works.annotate(listed_total=Window(Count("pk"))).values_list("pk", "listed_total")
        rows = list(counted[start : start + WORKS_PER_PAGE])
    if not rows and wanted != 1:  # past the last page, or below the first: get_page's answer
        page = paginator.get_page(number)
        page.object_list = WorksById(list(page.object_list))
        return page
    paginator.count = rows[0][1] if rows else 0
    return Page(WorksById([pk for pk, _total in rows]), wanted, paginator)


def _topic_choices(metrics, filterset: WorkFilter) -> list[dict]:
    """The author's main topics for the filter, plus the one asked for if it is not among them."""
    choices = list(metrics.topics_top) if metrics else []
    chosen = getattr(filterset.form, "cleaned_data", {}).get("topic")
    if chosen is not None and all(c.get("key") != chosen.key for c in choices):
        choices.append({"id": chosen.pk, "name": chosen.name, "key": chosen.key, "works": None})
    return choices


def _sort_links(query: QueryDict, current: str) -> list[dict]:
    """One link per sort order, keeping the filters and starting again at page 1."""
    links = []
    for value, label in Sort.CHOICES:
        params = query.copy()
        params.pop("page", None)
        params["sort"] = value
        url = f"?{params.urlencode()}"
        links.append({"value": value, "label": label, "url": url, "current": value == current})
    return links


def _identifiers(author: Author) -> dict:
    openalex = author.openalex_id or ""
    local = bool(openalex) and openalex_is_local(openalex)
    return {
        "orcid_url": f"https://orcid.org/{author.orcid}" if author.orcid else "",
        "openalex_url": openalex_url(openalex),
        "openalex_local": local,
        "arxiv_url": "https://arxiv.org/search/?"
        + urlencode({"searchtype": "author", "query": author.display_name}),
    }


def _pinned_works(profile: Profile | None, works: QuerySet[Work]) -> list[int]:
    """The owner's pinned works among ``works`` (visible, matching the filters), in pin
    order: their ids."""
    if profile is None:
        return []
    order = list(
        Profile.pinned_works.through.objects.filter(profile=profile)
        .order_by("id")
        .values_list("work_id", flat=True)
    )
    if not order:
        return []
    found = set(works.filter(pk__in=order).values_list("pk", flat=True))
    return [pk for pk in order if pk in found]

"""Everything the researcher page shows, gathered for its view.

``researcher_page`` returns what every visitor sees alike, ``researcher_viewer``
the visitor's own side (follow, claim and collaboration panels): the first is
kept in the cache for all visitors (``pages.cache.shared_page``), the
second is drawn for each. Both are plain dataclasses; the page's template and its
partials only render them. The page sits above every app it shows, so it names
each section's builder itself (``SECTIONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import QueryDict
from django.shortcuts import get_object_or_404

from catalogue import selectors
from catalogue.filters import Sort, WorkFilter
from catalogue.identifiers import openalex_is_local, openalex_url
from catalogue.models import Author, AuthorMetrics, Work
from pages.charts import Chart, citations_chart
from profiles.claims.services import PanelState as ClaimPanel
from profiles.claims.services import claim_panel_state
from profiles.collaboration.forms import InvitationForm
from profiles.collaboration.selectors import PanelState as CollaborationPanel
from profiles.collaboration.selectors import collaboration_panel_state
from profiles.following.services import FollowState, follow_state
from profiles.models import Profile
from trust.panels import trust_panel

WORKS_PER_PAGE = 20

SectionBuilder = Callable[[Author], object]
# The sections other apps draw for every researcher page, by the name templates use.
SECTIONS: dict[str, SectionBuilder] = {"trust": trust_panel}


@dataclass(frozen=True)
class ResearcherPage:
    author: Author
    profile: Profile | None
    metrics: AuthorMetrics | None
    chart: Chart | None
    identifiers: dict
    # The works list, filtered, sorted and paged as the query string asks.
    filterset: WorkFilter
    filters_active: bool
    works: Page
    pinned_works: list[Work]  # the owner's pins lead the first page
    works_total: int
    sort_links: list[dict]
    topic_choices: list[dict]
    # What other apps add, by name (the trust app: "trust", its snapshot).
    sections: dict[str, object]

    def shown_works(self) -> list[Work]:
        """The works listed, pinned first (authorships prefetched)."""
        return [*self.pinned_works, *self.works]


def author_for_page(pk: int, *, in_full: bool = False) -> Author:
    """The author of a researcher page, or Http404: with its profile (what the viewer's
    panels need) or ``in_full``, with its metrics and last known institution too (what
    ``researcher_page`` shows)."""
    related = ("profile", "metrics", "last_known_institution") if in_full else ("profile",)
    queryset = Author.objects.select_related(*related).filter(is_deleted=False)
    return get_object_or_404(queryset, pk=pk)


@dataclass(frozen=True)
class ResearcherViewer:
    """The viewer's side of the page."""

    follow: FollowState
    claim: ClaimPanel
    collaboration: CollaborationPanel
    invitation_form: InvitationForm | None


def researcher_viewer(*, author: Author, viewer) -> ResearcherViewer:
    """The follow, claim and collaboration panels of ``author``'s page as ``viewer`` sees them.

    ``author`` comes with its profile selected.
    """
    collaboration = collaboration_panel_state(author=author, user=viewer)
    return ResearcherViewer(
        follow=follow_state(author=author, user=viewer),
        claim=claim_panel_state(author=author, user=viewer),
        collaboration=collaboration,
        invitation_form=InvitationForm() if collaboration.state == "can_invite" else None,
    )


def researcher_page(*, author: Author, query: QueryDict) -> ResearcherPage:
    """The page of ``author`` as every visitor sees it for the query string ``query``.

    ``author`` comes from ``author_for_page(pk, in_full=True)``.
    """
    metrics = getattr(author, "metrics", None)
    profile = getattr(author, "profile", None)
    filterset = WorkFilter(query, queryset=selectors.author_works(author))
    pinned = _pinned_works(profile, filterset.qs)
    rest = filterset.qs.exclude(pk__in=[w.pk for w in pinned]) if pinned else filterset.qs
    works = Paginator(rest, WORKS_PER_PAGE).get_page(query.get("page"))
    return ResearcherPage(
        author=author,
        profile=profile,
        metrics=metrics,
        chart=citations_chart(metrics.citations_by_year) if metrics else None,
        identifiers=_identifiers(author),
        filterset=filterset,
        filters_active=filterset.active,
        works=works,
        pinned_works=pinned if works.number == 1 else [],
        works_total=len(pinned) + works.paginator.count,
        sort_links=_sort_links(query, filterset.sort_value),
        topic_choices=_topic_choices(metrics, filterset),
        sections={name: build(author) for name, build in SECTIONS.items()},
    )


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


def _pinned_works(profile: Profile | None, works: QuerySet[Work]) -> list[Work]:
    """The owner's pinned works among ``works`` (visible, matching the filters), in pin order."""
    if profile is None:
        return []
    order = list(
        Profile.pinned_works.through.objects.filter(profile=profile)
        .order_by("id")
        .values_list("work_id", flat=True)
    )
    if not order:
        return []
    found = {work.pk: work for work in works.filter(pk__in=order)}
    return [found[pk] for pk in order if pk in found]

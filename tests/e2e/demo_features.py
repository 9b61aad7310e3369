"""What each row of docs/FEATURES.md must show on the demo, and where to look for it.

A check opens a page (as a visitor, a demo account or staff) and names what must
be there: ``(selector, text)`` needs a visible element under ``selector`` with
text, containing ``text`` when it is not empty; ``(selector, None)`` needs one
element, visible or not (an SVG line, an option); a check whose pairs are all
``("GET", text)`` fetches its address (an export, the API) and needs ``text`` in
the body. ``absent`` lists
``(selector, text)`` pairs that must not be found.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from catalogue.models import Author, Institution, MergeCandidate, Topic, Venue, Work

FEATURES = Path(__file__).resolve().parents[2] / "docs" / "FEATURES.md"
STAFF = "staff"


@dataclass(frozen=True)
class Check:
    path: Callable[[], str]
    expect: tuple[tuple[str, str | None], ...]
    user: str | None = None  # a key of devtools/demo/people.json, STAFF, or a visitor
    absent: tuple[tuple[str, str], ...] = field(default=())


def feature_rows() -> list[str]:
    """The ids of the feature table, in its order."""
    rows = re.findall(r"^\| ([a-z][a-z-]+) \|", FEATURES.read_text("utf-8"), flags=re.M)
    return [row for row in rows if row != "id"]


def researcher(openalex_id: str, query: str = "") -> Callable[[], str]:
    return lambda: Author.objects.get(openalex_id=openalex_id).get_absolute_url() + query


def work(**lookup) -> Callable[[], str]:
    return lambda: Work.objects.visible().get(**lookup).get_absolute_url()


def exports(suffix: str) -> Callable[[], str]:
    return lambda: f"/researchers/{Author.objects.get(openalex_id=GENNADY).pk}/{suffix}"


def variant_candidate() -> str:
    candidate = MergeCandidate.objects.get(author_a__openalex_id=MIRA)
    return f"/admin/publications/mergecandidate/{candidate.pk}/change/"


def conversation() -> str:
    from profiles.models import Invitation

    return f"/inbox/{Invitation.objects.get(topic__startswith='Street sensors').pk}/"


GENNADY, MIRA = "A9000000001", "A9800000001"
STAT = ".stat:has(dt:text-is('{}')) dd"
FACT = "dl.fact-list div:has(dt:text-is('{}')) dd"
COCONET = {"doi": "10.1145/3503222.3507778"}
RL_SCOPE = {"arxiv_id": "2102.04285"}

CHECKS: dict[str, list[Check]] = {
    "headline-figures": [
        Check(
            researcher(GENNADY),
            (
                (STAT.format("works"), "13"),
                (STAT.format("topics"), "9"),
                (".stat:has(dt:has-text('close collaborator')) dd", "4"),
                (STAT.format("citations"), ""),
                (STAT.format("h-index"), ""),
                (STAT.format("i10-index"), ""),
            ),
            absent=((".stat-grid", "unknown"),),
        )
    ],
    "scores": [
        Check(
            researcher(GENNADY),
            (
                (".score:has(dt:text-is('Primary category')) dd", "cs.DC"),
                (".score:has(dt:text-is('AI score')) .score-value", ""),
                (".score:has(dt:text-is('Novelty')) .score-value", "%"),
            ),
            absent=((".score:has(dt:text-is('Novelty')) .score-value", "100%"),),
        )
    ],
    "institutions": [
        Check(
            researcher(GENNADY),
            ((".badge-affiliation", "University of Toronto"), (".glance-institutions li", "–")),
        )
    ],
    "trust-snapshot": [
        Check(
            researcher(GENNADY),
            (
                (".trust-snapshot .trust-score", ""),
                (".trust-level", "L2"),
                (".trust-why", "Why this score"),
                (".trust-item", None),
            ),
        )
    ],
    "trust-history": [Check(researcher(MIRA), ((".trust-history figcaption", "recorded scores"),))],
    "citations-chart": [
        Check(
            researcher(GENNADY),
            ((".citations-panel figcaption", "Citations received"), ("rect.bar", None)),
        )
    ],
    "graph-slice": [
        # Listed in the page, then drawn when the slice arrives: a link to his page either way.
        Check(researcher(GENNADY), ((".graph-section a[href*='-james-gleeson/']", None),))
    ],
    "work-list": [
        Check(
            researcher(GENNADY),
            (
                (".work-item .badge-code", "Code"),
                (".work-item .arxiv-id", "arXiv:"),
                (".work-item .work-created", "Created:"),
                (".work-item .work-comments", "Comments:"),
                (".work-item .authors-truncated", "et al."),
                (".work-item .work-venue", ""),
            ),
        )
    ],
    "work-filters": [
        Check(
            researcher(GENNADY, "?has_code=true"),
            (("#works-count", "2 published items match"), ("#filter-topic option", None)),
        )
    ],
    "exports": [
        Check(exports("export.bib"), (("GET", "@"),)),
        Check(exports("export.ris"), (("GET", "TY  -"),)),
        Check(exports("export.json"), (("GET", "RL-Scope"),)),
        Check(exports("feed.atom"), (("GET", "<entry"),)),
    ],
    "claimed-profile": [
        Check(
            researcher(MIRA),
            (
                (".tagline", "Urban climate"),
                (".badge-open", "Open to collaborate"),
                ("[data-testid=homepage]", "lakeshore.example"),
                (".trust-level", "L4"),
            ),
        )
    ],
    "pinned-work": [Check(researcher(MIRA), ((".work-item.is-pinned", "Tree canopy"),))],
    "followers": [Check(researcher(MIRA), ((STAT.format("followers"), "2"),))],
    "citation-alerts": [
        Check(
            researcher(MIRA), ((".citation-alerts-form", "You hear about new citations"),), "lena"
        )
    ],
    "open-access": [
        Check(work(openalex_id="W9800000001"), ((FACT.format("Access"), "(gold)"),)),
        Check(work(openalex_id="W9800000002"), ((FACT.format("Access"), "(hybrid)"),)),
        Check(work(openalex_id="W9800000003"), ((FACT.format("Access"), "(green)"),)),
        Check(work(openalex_id="W9800000004"), ((FACT.format("Access"), "(diamond)"),)),
        Check(work(openalex_id="W9800000005"), ((FACT.format("Access"), "(bronze)"),)),
        Check(work(**COCONET), ((FACT.format("Access"), "Not open access"),)),
    ],
    "embargo": [Check(work(**COCONET), ((".work-notice", "embargo until 28 Feb 2023"),))],
    "funding": [
        Check(
            work(**COCONET),
            (("section[aria-labelledby=funding-heading]", "National Science Foundation"),),
        ),
        Check(
            work(openalex_id="W9800000001"),
            (("section[aria-labelledby=funding-heading]", "LCF-2020-114"),),
        ),
    ],
    "versions": [
        Check(
            work(**COCONET),
            (
                ("[data-testid=identifiers]", "10.1145/3503222.3507778"),
                ("[data-testid=identifiers]", "arXiv:2105.05720"),
                (FACT.format("Type"), "Article"),
                (FACT.format("Published"), "22 Feb 2022"),
                (".work-actions", "PDF"),
                (".work-actions", "Publisher page"),
            ),
        )
    ],
    "affiliations": [
        Check(
            work(**COCONET),
            (("ol.affiliations", "University of Massachusetts Amherst"), (".corresponding", "")),
        )
    ],
    "references": [
        Check(
            work(openalex_id="W9000000017"),
            (
                ("#references-heading", "(3; 1 on this site)"),
                (".reference-list", "Memory-Efficient Pipeline-Parallel DNN Training"),
                (".reference-list", "not held here"),
            ),
        )
    ],
    "cited-by": [
        Check(
            work(title="MLPerf Training Benchmark"),
            (
                ("#cited-by-heading", "(2 on this site"),
                ("#cited-by .work-title", "MLPerf Inference"),
            ),
        )
    ],
    "more-like-this": [Check(work(**RL_SCOPE), ((".similar-item .reason", ""),))],
    "work-facts": [
        Check(
            work(**RL_SCOPE),
            (
                ("section[aria-labelledby=topics-heading] .chip", ""),
                (".work-actions", "Code"),
                ("details.provenance summary", "Where each fact comes from"),
            ),
        )
    ],
    "institution-page": [
        Check(
            lambda: Institution.objects.get(openalex_id="I9000000001").get_absolute_url(),
            ((".entity-links", "Homepage"), (".researcher-results", "Gennady Pekhimenko")),
        )
    ],
    "venue-page": [
        Check(
            lambda: Venue.objects.get(name__startswith="ASPLOS 2022").get_absolute_url(),
            ((".entity-works .work-title", "Breaking the computation"),),
        )
    ],
    "topic-page": [
        Check(
            lambda: Topic.objects.get(key="openalex:T9000000001").get_absolute_url(),
            ((".entity-header", "Part of Hardware and Architecture"), (".entity-works", "")),
        )
    ],
    "namesakes": [
        Check(
            lambda: "/search/?q=Mira+Okafor",
            (
                (".researcher-result:has-text('Lakeshore Institute of Technology')", "Mira Okafor"),
                (".researcher-result:has-text('Coral')", "Mira Okafor"),
            ),
        )
    ],
    "graph-explorer": [
        Check(
            lambda: f"/works/{Work.objects.get(title='MLPerf Training Benchmark').pk}/graph/",
            (("line.edge-cites", None),),
        )
    ],
    "following": [
        Check(
            lambda: "/following/",
            ((".followed-list", "Tomas Lindqvist"), (".following-page", "Cooling centres")),
            "sam",
        )
    ],
    "notifications": [
        Check(
            lambda: "/notifications/",
            ((".notification-list", "New citation of Mira Okafor"),),
            "lena",
        ),
        Check(
            lambda: "/notifications/",
            ((".notification-list", "New work by Tomas Lindqvist"),),
            "sam",
        ),
    ],
    "conversation": [
        Check(lambda: "/inbox/", ((".conversation-list", "Tomas Lindqvist"),), "mira"),
        Check(conversation, ((".message-list .message", "Tuesday"),), "mira"),
    ],
    "claims": [Check(lambda: "/claims/", ((".claim-table tbody tr", "Approved"),), "mira")],
    "merge-candidates": [
        Check(
            lambda: "/admin/publications/mergecandidate/",
            (("#result_list", "Mira Okafor"),),
            STAFF,
        )
    ],
    "name-variants": [Check(variant_candidate, (("#content", "Mira N. Okafor"),), STAFF)],
    "import-runs": [
        Check(lambda: "/admin/publications/importrun/", (("#result_list", "Succeeded"),), STAFF)
    ],
    "trust-explained": [Check(lambda: "/trust/", (("main h1", ""), ("main", "Emerging")))],
    "home": [
        Check(
            lambda: "/",
            (("section[aria-labelledby=recent-researchers] .card-title", "Gennady Pekhimenko"),),
        )
    ],
    "api": [
        Check(
            lambda: f"/api/v1/authors/{Author.objects.get(openalex_id=GENNADY).pk}/",
            (("GET", '"metrics"'), ("GET", "Gennady Pekhimenko")),
        )
    ],
}

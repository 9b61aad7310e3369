"""What the trust score counts and how much: tiers, levels, components and their weights.

The table the score is made from (see ``trust.scoring`` for how it is made), and the
scales that turn a count into points. Pure data and arithmetic: no database, no model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Kept in step with trust.models.Tier and trust.models.Level, which store these values;
# this module imports no Django model so it stays pure.
EMERGING, ESTABLISHED, TRUSTED, EXEMPLARY = "emerging", "established", "trusted", "exemplary"
TIERS = [
    # (lowest score of the tier, value, label)
    (80, EXEMPLARY, "Exemplary"),
    (60, TRUSTED, "Trusted"),
    (30, ESTABLISHED, "Established"),
    (0, EMERGING, "Emerging"),
]
LEVELS = {
    0: "Name only",
    1: "Identified by a source id (OpenAlex author)",
    2: "ORCID on the record, or ids agree across sources",
    3: "Claimed and verified by the person through ORCID sign-in whose iD equals the record's",
    4: "Claimed and reviewed by staff, whatever the evidence",
}
RECENT_YEARS = 3  # "recent work": this calendar year and the two before it


@dataclass(frozen=True)
class Component:
    key: str
    label: str
    maximum: int
    summary: str


COMPONENTS = [
    Component("identity", "Identity", 40, "Who this record is, and how sure we are of it."),
    Component("record", "Record", 35, "The published record: works, venues and citations."),
    Component("community", "Community", 12, "People on this site who follow or vouch for it."),
    Component("activity", "Activity", 13, "How long and how recently the researcher publishes."),
    Component("penalties", "Penalties", 0, "Evidence that something on the record is wrong."),
]


@dataclass(frozen=True)
class Weight:
    """One item of the score: what earns its points and how many it can earn."""

    key: str
    component: str
    label: str
    maximum: int  # the most points the item gives (0 for penalties)
    rule: str  # how the points are earned, in plain words (shown on /trust/)
    scale: str = "fixed"  # fixed | log | linear | penalty
    full_at: int = 1  # the count at which a log or linear item reaches its maximum
    per: int = 0  # penalties: points taken for each occurrence
    floor: int = 0  # penalties: the most points taken in all


# The one table of weights. The /trust/ page, the API and the score all read it.
WEIGHTS: dict[str, Weight] = {
    w.key: w
    for w in [
        Weight(
            "claim",
            "identity",
            "Claim",
            20,
            "20 when the person claimed the record and staff reviewed their evidence "
            "(a confirmed institutional email address included); 16 when they proved it "
            "by signing in with the record's ORCID iD. A claim waiting for staff, with "
            "whatever evidence, earns nothing until it is approved.",
        ),
        Weight("orcid", "identity", "ORCID iD", 8, "8 when an ORCID iD is on the record."),
        Weight(
            "ids_agree",
            "identity",
            "Ids agree across sources",
            6,
            "6 when OpenAlex and arXiv both list works under this OpenAlex-identified "
            "record, or the claimant signed in with the record's ORCID iD.",
        ),
        Weight(
            "source_id",
            "identity",
            "Source id",
            3,
            "3 when the record carries an OpenAlex author id.",
        ),
        Weight(
            "affiliation",
            "identity",
            "Affiliation",
            3,
            "3 when an institution has been imported for the record.",
        ),
        Weight(
            "works",
            "record",
            "Works",
            12,
            "Log scale over the number of works; full at 100 works.",
            "log",
            100,
        ),
        Weight(
            "venues",
            "record",
            "Venues",
            8,
            "Log scale over the distinct journals and venues published in; full at 30.",
            "log",
            30,
        ),
        Weight(
            "citations",
            "record",
            "Citations",
            15,
            "Log scale over the citations of all works, as the sources report them; "
            "full at 10,000. Unknown counts earn nothing.",
            "log",
            10_000,
        ),
        Weight(
            "followers",
            "community",
            "Followers",
            8,
            "Log scale over the users of this site who follow the researcher; full at 100.",
            "log",
            100,
        ),
        Weight(
            "claimed_collaborators",
            "community",
            "Claimed collaborators",
            4,
            "1 for each co-author who has claimed their own record here, up to 4.",
            "linear",
            4,
        ),
        Weight(
            "years_active",
            "activity",
            "Years active",
            7,
            "From the first to the latest year of publication; full at 20 years.",
            "linear",
            20,
        ),
        Weight(
            "recent_work",
            "activity",
            "Recent work",
            6,
            f"1 for each work in the last {RECENT_YEARS} calendar years, up to 6.",
            "linear",
            6,
        ),
        Weight(
            "retracted",
            "penalties",
            "Retracted works",
            0,
            "-10 for each retracted work, at most -30.",
            "penalty",
            per=10,
            floor=-30,
        ),
        Weight(
            "disputes",
            "penalties",
            "Disputed claims",
            0,
            "-5 for each claim on the record that staff have yet to settle, at most -10; "
            "none while someone holds the record by an approved claim (anyone can claim "
            "a record, and a claim takes nothing from its holder until staff decide).",
            "penalty",
            per=5,
            floor=-10,
        ),
        Weight(
            "misattributions",
            "penalties",
            "Upheld misattribution reports",
            0,
            "-4 for each report of a misattributed work that staff upheld, at most -12.",
            "penalty",
            per=4,
            floor=-12,
        ),
    ]
}

COMPONENTS_BY_KEY = {c.key: c for c in COMPONENTS}


# Scales -------------------------------------------------------------------------


def _round(value: float) -> int:
    """Round half up, so 2.5 is 3 (Python's round() would give 2)."""
    return math.floor(value + 0.5)


def scaled(weight: Weight, count: int | None) -> int:
    """Points a count earns on the weight's scale, from 0 to its maximum."""
    count = max(count or 0, 0)
    if weight.scale == "log":
        share = math.log1p(count) / math.log1p(weight.full_at)
    elif weight.scale == "linear":
        share = count / weight.full_at
    else:
        raise ValueError(f"{weight.key} has no count scale")
    return _round(weight.maximum * min(share, 1.0))


def penalty(weight: Weight, count: int) -> int:
    return max(-weight.per * max(count, 0), weight.floor)


def tier_for(score: int) -> str:
    return next(value for lowest, value, _ in TIERS if score >= lowest)


def tier_label(tier: str) -> str:
    return next(label for _, value, label in TIERS if value == tier)


def weights_by_component() -> list[tuple[Component, list[Weight]]]:
    """The weights table grouped by component, in the order the score lists them."""
    return [(c, [w for w in WEIGHTS.values() if w.component == c.key]) for c in COMPONENTS]

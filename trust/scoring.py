"""The trust score: pure functions from an author's signals to a score, tier and level.

Nothing here reads the database: ``trust.selectors`` gathers the ``Signals`` of
an author, ``score`` turns them into a ``Result`` and ``trust.services`` stores it.
What each item is worth, the tiers and the levels are in ``trust.weights``.

How the score is made (docs/TRUST.md)
-------------------------------------
The score (0-100) is the sum of four components, identity (at most 40 points),
record (35), community (12) and activity (13), minus penalties, and is then held
within 0-100. Each component is made of the items in ``WEIGHTS``; an item earns
whole points, so a reader can add the numbers on the page and get the score.

Counts grow on one of two scales, both reaching the item's maximum at its
``full_at`` count and never going past it:

- ``log``: ``maximum * log(1 + n) / log(1 + full_at)``. A record's size spans
  orders of magnitude, so the first works and citations count for most and a
  few giants do not dwarf everyone;
- ``linear``: ``maximum * n / full_at``, for small counts where every unit means
  as much as the next (years active, recent works, claimed collaborators).

Penalties take ``per`` points for each occurrence down to their ``floor``.

Every item states the evidence behind its points, with links where a page shows
it, so the score can be checked. Adding only positive evidence (more works,
citations, followers, an ORCID, a claim) never lowers the score.

Verification levels and tiers are those of docs/TRUST.md: see ``level_for`` and
``tier_for``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trust.weights import (
    COMPONENTS,
    COMPONENTS_BY_KEY,
    RECENT_YEARS,
    WEIGHTS,
    penalty,
    scaled,
    tier_for,
    tier_label,
)


@dataclass(frozen=True)
class Link:
    label: str
    url: str = ""


@dataclass(frozen=True)
class Signals:
    """Everything the score of one author is computed from."""

    # Identity
    openalex_id: str = ""
    openalex_url: str = ""  # its page at OpenAlex; empty for local ids
    orcid: str = ""
    claim_status: str = ""  # "" (unclaimed), "pending", "disputed" or "approved"
    claim_method: str = ""  # orcid | email | evidence, for an approved claim
    claim_reviewed: bool = False  # staff reviewed the approved claim (L4)
    claim_orcid_matches: bool = False  # the claimant signed in with the record's ORCID iD
    cross_source_works: int = 0  # works both OpenAlex and arXiv list under this record
    affiliation: str = ""  # an imported institution, the latest first
    # Record
    works: int = 0
    works_url: str = ""
    venues: int = 0
    citations: int | None = None  # None: no source gave counts
    # The source's own count of the record's works (its author record), when given:
    # a record whose works are not imported is told apart from one with none.
    source_works: int | None = None
    source_name: str = ""  # "OpenAlex"
    source_as_of: str = ""  # the date the source last updated the record, YYYY-MM-DD
    # Community
    followers: int = 0
    claimed_collaborators: int = 0
    collaborator_links: tuple[Link, ...] = ()
    # Activity
    first_year: int | None = None
    last_year: int | None = None
    recent_works: int = 0
    this_year: int = 2000
    # Penalties
    retracted: int = 0
    retracted_links: tuple[Link, ...] = ()
    disputes: int = 0
    misattributions: int = 0
    misattribution_links: tuple[Link, ...] = ()


@dataclass
class Item:
    key: str
    label: str
    points: int
    maximum: int
    evidence: str
    links: list[Link] = field(default_factory=list)
    floor: int = 0


@dataclass
class Group:
    key: str
    label: str
    points: int
    maximum: int
    items: list[Item]
    floor: int = 0


@dataclass
class Result:
    score: int
    tier: str
    level: int
    claim_status: str  # short words for the snapshot: "Unclaimed author", ...
    components: list[Group]

    @property
    def tier_label(self) -> str:
        return tier_label(self.tier)

    def components_json(self) -> list[dict]:
        """The components as stored: keys, points, evidence and links only.

        Labels, maxima and floors come from the weights table when they are shown
        (``expand_components``); rows stay small, which keeps writing 100,000 of them
        quick. Use it rather than dataclasses.asdict, which is ten times slower here.
        """
        return [
            {"key": g.key, "points": g.points, "items": [_item_json(i) for i in g.items]}
            for g in self.components
        ]


def _item_json(item: Item) -> dict:
    data = {"key": item.key, "points": item.points, "evidence": item.evidence}
    if item.links:
        data["links"] = [{"label": link.label, "url": link.url} for link in item.links]
    return data


def expand_components(stored: list[dict]) -> list[dict]:
    """Stored components with each group's and item's label, maximum and floor added."""
    groups = []
    for group in stored or []:
        component = COMPONENTS_BY_KEY.get(group["key"])
        items = []
        for item in group.get("items", []):
            weight = WEIGHTS.get(item["key"])
            items.append(
                {
                    "key": item["key"],
                    "label": weight.label if weight else item["key"],
                    "points": item["points"],
                    "maximum": weight.maximum if weight else 0,
                    "floor": weight.floor if weight else 0,
                    "evidence": item.get("evidence", ""),
                    "links": item.get("links", []),
                }
            )
        groups.append(
            {
                "key": group["key"],
                "label": component.label if component else group["key"],
                "points": group["points"],
                "maximum": component.maximum if component else 0,
                "floor": sum(i["floor"] for i in items),
                "items": items,
            }
        )
    return groups


def level_for(signals: Signals) -> int:
    """The highest verification level the evidence reaches (docs/TRUST.md).

    L3 only through ORCID sign-in: a claim approved without staff by anything else (an
    institutional email under the former rule) proves nothing and gives no claim level.
    """
    if claim_reviewed(signals):
        return 4
    if claim_proved_by_orcid(signals):
        return 3
    if signals.orcid or ids_agree(signals):
        return 2
    if signals.openalex_id:
        return 1
    return 0


def claim_reviewed(signals: Signals) -> bool:
    return signals.claim_status == "approved" and signals.claim_reviewed


def claim_proved_by_orcid(signals: Signals) -> bool:
    return (
        signals.claim_status == "approved"
        and not signals.claim_reviewed
        and signals.claim_method == "orcid"
    )


def ids_agree(signals: Signals) -> bool:
    return bool(signals.openalex_id and signals.cross_source_works) or signals.claim_orcid_matches


def claim_status_label(signals: Signals) -> str:
    if claim_reviewed(signals):
        return "Claimed, reviewed by staff"
    if claim_proved_by_orcid(signals):
        return "Claimed and verified"
    if signals.claim_status == "approved":
        return "Claim pending review"
    return {
        "pending": "Claim pending review",
        "disputed": "Claim disputed",
    }.get(signals.claim_status, "Unclaimed author")


# Items ----------------------------------------------------------------------------


def _item(key: str, points: int, evidence: str, links=()) -> Item:
    weight = WEIGHTS[key]
    return Item(key, weight.label, points, weight.maximum, evidence, list(links), weight.floor)


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


METHOD_WORDS = {
    "orcid": "proved by ORCID sign-in",
    "email": "a confirmed institutional email address as evidence",
    "evidence": "evidence reviewed by staff",
}


def claim_item(s: Signals) -> Item:
    how = METHOD_WORDS.get(s.claim_method, s.claim_method)
    if claim_reviewed(s):
        if s.claim_method == "orcid":
            how = f"{how}, and reviewed by staff"
        elif s.claim_method != "evidence":
            how = f"{how}, reviewed by staff"
        return _item("claim", 20, f"Claimed by the researcher: {how}.")
    if claim_proved_by_orcid(s):
        return _item("claim", 16, f"Claimed by the researcher: {how}.")
    if s.claim_status in ("pending", "approved"):
        return _item("claim", 0, "A claim waits for staff review; it counts once approved.")
    if s.claim_status == "disputed":
        return _item("claim", 0, "Claims on this record are disputed; staff will decide.")
    return _item("claim", 0, "Nobody has claimed this record yet.")


def identity_items(s: Signals) -> list[Item]:
    items = [claim_item(s)]
    if s.orcid:
        link = Link(f"ORCID {s.orcid}", f"https://orcid.org/{s.orcid}")
        items.append(_item("orcid", 8, f"ORCID iD {s.orcid} is on the record.", [link]))
    else:
        items.append(_item("orcid", 0, "No ORCID iD on the record."))
    items.append(_agreement_item(s))
    if s.openalex_id:
        links = [Link(f"OpenAlex {s.openalex_id}", s.openalex_url)] if s.openalex_url else []
        items.append(_item("source_id", 3, f"OpenAlex author id {s.openalex_id}.", links))
    else:
        items.append(_item("source_id", 0, "No source id: the record was built from names."))
    if s.affiliation:
        items.append(_item("affiliation", 3, f"Affiliation imported: {s.affiliation}."))
    else:
        items.append(_item("affiliation", 0, "Affiliation not imported."))
    return items


def _agreement_item(s: Signals) -> Item:
    reasons = []
    if s.openalex_id and s.cross_source_works:
        reasons.append(
            f"{_plural(s.cross_source_works, 'work')} listed by both OpenAlex and arXiv "
            "under this record"
        )
    if s.claim_orcid_matches:
        reasons.append("the claimant signed in with the record's ORCID iD")
    if reasons:
        text = "; ".join(reasons)
        return _item("ids_agree", 6, text[0].upper() + text[1:] + ".")
    if s.openalex_id:
        return _item("ids_agree", 0, "No work is listed by both OpenAlex and arXiv yet.")
    return _item("ids_agree", 0, "No source id to compare with another source.")


def works_not_imported(s: Signals) -> str:
    """Words for works the source counts and none of which is held here, or ""."""
    if s.works or not s.source_works:
        return ""
    as_of = f" as of {s.source_as_of}" if s.source_as_of else ""
    source = s.source_name or "The source"
    return (
        f"The works are not imported yet: {source} counts {_plural(s.source_works, 'work')}"
        f"{as_of}, none held here."
    )


def record_items(s: Signals) -> list[Item]:
    works_link = [Link("Published work", s.works_url)] if s.works_url and s.works else []
    missing = works_not_imported(s)
    if missing:
        works_text = missing
    elif s.source_works and s.works < s.source_works:
        source = s.source_name or "the source"
        works_text = f"{_plural(s.works, 'work')} held here of {s.source_works:,} per {source}."
    else:
        works_text = f"{_plural(s.works, 'work')}."
    items = [
        _item("works", scaled(WEIGHTS["works"], s.works), works_text, works_link),
        _item(
            "venues",
            scaled(WEIGHTS["venues"], s.venues),
            "Counted once the works are imported."
            if missing
            else f"Published in {_plural(s.venues, 'distinct venue')}.",
        ),
    ]
    if missing:
        items.append(_item("citations", 0, "Counted once the works are imported."))
    elif s.citations is None:
        items.append(_item("citations", 0, "No source gave citation counts for these works."))
    else:
        points = scaled(WEIGHTS["citations"], s.citations)
        items.append(_item("citations", points, f"{_plural(s.citations, 'citation')} in all."))
    return items


def community_items(s: Signals) -> list[Item]:
    followers = _item(
        "followers",
        scaled(WEIGHTS["followers"], s.followers),
        f"{_plural(s.followers, 'follower')} on this site.",
    )
    count = s.claimed_collaborators
    if count:
        names = ", ".join(link.label for link in s.collaborator_links)
        unnamed = count - len(s.collaborator_links)
        more = f" and {unnamed} more" if unnamed > 0 else ""
        text = f"{_plural(count, 'co-author')} claimed their record: {names}{more}."
    else:
        text = "No co-author has claimed their record here yet."
    claimed = _item(
        "claimed_collaborators",
        scaled(WEIGHTS["claimed_collaborators"], count),
        text,
        [link for link in s.collaborator_links if link.url],
    )
    return [followers, claimed]


def years_active(s: Signals) -> int:
    if s.first_year is None or s.last_year is None:
        return 0
    return max(s.last_year - s.first_year + 1, 1)


def activity_items(s: Signals) -> list[Item]:
    years = years_active(s)
    if years:
        span = f"{s.first_year}" if years == 1 else f"{s.first_year} to {s.last_year}"
        text = f"Works from {span}: {_plural(years, 'year')} active."
    elif works_not_imported(s):
        text = works_not_imported(s)
    elif not s.works:
        text = "No work is held here."
    else:
        text = "No work has a publication year."
    since = s.this_year - RECENT_YEARS + 1
    recent_text = f"{_plural(s.recent_works, 'work')} from {since} to {s.this_year}."
    recent = _item(
        "recent_work",
        scaled(WEIGHTS["recent_work"], s.recent_works),
        "Counted once the works are imported." if works_not_imported(s) else recent_text,
    )
    return [_item("years_active", scaled(WEIGHTS["years_active"], years), text), recent]


def held(s: Signals) -> bool:
    """Whether someone holds the record by a claim that counts (proved or reviewed)."""
    return claim_reviewed(s) or claim_proved_by_orcid(s)


def _disputes_evidence(s: Signals) -> str:
    if not s.disputes:
        return "No open dispute."
    waiting = f"{_plural(s.disputes, 'disputed claim')} waiting for staff"
    if held(s):
        # Anyone signed in can claim a record: a claim against its holder takes
        # nothing from them until staff decide.
        return f"{waiting}; the record's holder loses nothing meanwhile."
    return f"{waiting}."


def penalty_items(s: Signals) -> list[Item]:
    retracted = _item(
        "retracted",
        penalty(WEIGHTS["retracted"], s.retracted),
        f"{_plural(s.retracted, 'retracted work')}." if s.retracted else "No retracted work.",
        s.retracted_links,
    )
    disputes = _item(
        "disputes",
        0 if held(s) else penalty(WEIGHTS["disputes"], s.disputes),
        _disputes_evidence(s),
    )
    reports = _item(
        "misattributions",
        penalty(WEIGHTS["misattributions"], s.misattributions),
        f"Staff upheld {_plural(s.misattributions, 'report')} of a misattributed work."
        if s.misattributions
        else "No upheld misattribution report.",
        s.misattribution_links,
    )
    return [retracted, disputes, reports]


ITEMS = {
    "identity": identity_items,
    "record": record_items,
    "community": community_items,
    "activity": activity_items,
    "penalties": penalty_items,
}


def score(signals: Signals) -> Result:
    """The score, tier, level and every component with its evidence."""
    groups = []
    for component in COMPONENTS:
        items = ITEMS[component.key](signals)
        groups.append(
            Group(
                component.key,
                component.label,
                sum(i.points for i in items),
                component.maximum,
                items,
                sum(i.floor for i in items),
            )
        )
    total = min(max(sum(g.points for g in groups), 0), 100)
    return Result(total, tier_for(total), level_for(signals), claim_status_label(signals), groups)

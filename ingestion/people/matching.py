"""Bare names of an import, weighed against the records of their name blocks.

The bylines an import could not place by an id or a byline position go to the
identity engine together with the records of their name blocks (each record a
person the engine keeps whole, see ``records``) and with the bylines this batch
already gave to a record. What the engine puts with a record joins it; a group
of newcomers with no record becomes one new record; pairs between the merge
and the candidate thresholds become merge candidates with their evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from catalogue.identifiers import normalize_name
from catalogue.models import MergeCandidate
from identity import Byline, Explainer, Thresholds, resolve
from identity.names import block_key
from ingestion.people.circles import records_held, with_circles
from ingestion.people.records import (
    anchor_id,
    block_records,
    kept_apart,
    provisional,
    record_bylines,
)

EVIDENCE_MAX = 300
ONLY_NAMESAKE = ["same full name", "the only record of that name, named on other works here"]
THRESHOLDS = Thresholds()  # precision first: merge at 0.9, propose from 0.5


@dataclass(slots=True)
class Placement:
    """Where one newcomer byline goes: a record (``author_id``) or a new group."""

    author_id: int | None
    group: int | None
    score: float
    evidence: str


@dataclass(slots=True)
class Pair:
    """Two of the people found (records or new groups) that may be one person."""

    left: tuple[str, int]  # ("record", pk) or ("group", index)
    right: tuple[str, int]
    score: float
    reasons: list[str]


@dataclass
class Outcome:
    placements: dict[str, Placement] = field(default_factory=dict)  # newcomer id -> placement
    groups: list[list[str]] = field(default_factory=list)  # newcomer ids of each new group
    names: dict[str, str] = field(default_factory=dict)  # newcomer id -> name as printed
    absorbed: dict[int, int] = field(default_factory=dict)  # provisional record -> record
    pairs: list[Pair] = field(default_factory=list)


def author_candidate(left: int, right: int, pair: Pair) -> MergeCandidate:
    """A merge candidate between two records, with the engine's evidence as its reason."""
    return MergeCandidate(
        kind=MergeCandidate.Kind.AUTHOR,
        author_a_id=min(left, right),
        author_b_id=max(left, right),
        reason=evidence_text("may be one person", pair.reasons),
        score=round(pair.score, 3),
    )


def evidence_text(level: str, reasons: list[str]) -> str:
    text = f"{level}: {', '.join(reasons)}" if reasons else level
    return text if len(text) <= EVIDENCE_MAX else text[: EVIDENCE_MAX - 3] + "..."


def place(
    newcomers: list[Byline],
    anchors: list[Byline],
    forbidden: dict[str, set[int]],
    thresholds: Thresholds = THRESHOLDS,
    blocks: set[str] = frozenset(),
    between_records: bool = False,
) -> Outcome:
    """Place ``newcomers`` (bylines without a source author id).

    ``anchors`` are bylines of this batch already placed on a record (their
    ``source_author_id`` names it); ``forbidden`` maps a newcomer id to the
    records a cannot-link keeps it from. Provisional records of the blocks
    (``records.provisional``) are weighed whole, and one the evidence puts with
    another record is folded into it (``Outcome.absorbed``). ``blocks`` adds name
    blocks to weigh again with no newcomer in them; with ``between_records``, pairs of
    records that may be one person are returned too (``Outcome.pairs``).
    """
    outcome = Outcome(names={b.id: b.name for b in newcomers})
    blocks = {block_key(b.name) for b in [*newcomers, *anchors]} | set(blocks)
    records = block_records(blocks, {b.name for b in newcomers})
    loose = provisional(records)
    if not newcomers and not loose and not (between_records and len(records) > 1):
        return outcome
    stored = record_bylines([r for r in records if r.pk not in loose])
    together: dict[int, list[str]] = {}
    for byline in record_bylines([r for r in records if r.pk in loose]):
        together.setdefault(int(byline.source_author_id[1:]), []).append(byline.id)
        stored.append(replace(byline, source_author_id=""))
    held = {(b.work_id, b.source_author_id) for b in stored}
    fresh_anchors = [a for a in anchors if (a.work_id, a.source_author_id) not in held]
    bylines = with_circles([*stored, *fresh_anchors, *newcomers])
    held = records_held()
    known = {r.pk for r in records}
    cannot = [
        (byline_id, anchor_id(pk))
        for byline_id, pks in forbidden.items()
        for pk in pks
        if pk in known
    ] + [(anchor_id(a), anchor_id(b)) for a, b in kept_apart(known)]
    resolution = resolve(
        bylines, cannot, thresholds, together=list(together.values()), records=held
    )
    explainer = Explainer(bylines, held)
    owner_of = {b.id: int(b.source_author_id[1:]) for b in bylines if b.source_author_id}
    loose_of = {i: pk for pk, ids in together.items() for i in ids}
    fresh = {b.id for b in newcomers}
    people = [
        _settle(ids, fresh, owner_of, loose_of, explainer, outcome) for ids in resolution.clusters
    ]
    seen = set()
    for candidate in resolution.candidates:
        left, right = people[candidate.left], people[candidate.right]
        wanted = between_records or "group" in (left[0], right[0])
        if left != right and wanted and (left, right) not in seen:
            seen.add((left, right))
            outcome.pairs.append(Pair(left, right, candidate.score, candidate.reasons))
    _only_namesake(outcome, records, anchors)
    return outcome


def _settle(ids, fresh, owner_of, loose_of, explainer, outcome: Outcome) -> tuple[str, int]:
    """Place the newcomers of one cluster; return who the cluster is."""
    owners = {owner_of[i] for i in ids if i in owner_of}
    folded = {loose_of[i] for i in ids if i in loose_of}
    newcomers = sorted(i for i in ids if i in fresh)
    if owners or folded:
        # The engine never puts two records with ids in one cluster; provisional ones
        # fold into the record with ids, else into the oldest of them.
        author_id = min(owners) if owners else min(folded)
        for pk in folded - {author_id}:
            outcome.absorbed[pk] = author_id
        for byline_id in newcomers:
            found = explainer.weigh(byline_id, ids)
            outcome.placements[byline_id] = Placement(
                author_id, None, found.score, evidence_text("name", found.reasons)
            )
        return ("record", author_id)
    group = len(outcome.groups)
    outcome.groups.append(newcomers)
    for n, byline_id in enumerate(newcomers):
        if n == 0:
            outcome.placements[byline_id] = Placement(
                None, group, 0.6, "name: no record held here had evidence for it"
            )
            continue
        found = explainer.weigh(byline_id, newcomers)
        outcome.placements[byline_id] = Placement(
            None, group, found.score, evidence_text("name", found.reasons)
        )
    return ("group", group)


def _only_namesake(outcome: Outcome, records, anchors: list[Byline]) -> None:
    """A new group whose name, printed the same, this batch also gives to the only
    record bearing it (by an id or a byline position) joins that record: one listing
    naming one full name on that person's works and on one more speaks of one person.
    With two records of that name the batch proves nothing."""
    named: dict[str, set[int]] = {}
    for anchor in anchors:
        named.setdefault(normalize_name(anchor.name), set()).add(int(anchor.source_author_id[1:]))
    bearers: dict[str, set[int]] = {}
    for record in records:
        bearers.setdefault(normalize_name(record.display_name), set()).add(record.pk)
    for pair in outcome.pairs:
        kinds = {pair.left[0]: pair.left[1], pair.right[0]: pair.right[1]}
        if set(kinds) != {"record", "group"} or pair.score < THRESHOLDS.candidate:
            continue
        author_id, group = kinds["record"], kinds["group"]
        ids = outcome.groups[group]
        names = {normalize_name(outcome.names[i]) for i in ids}
        if len(names) != 1:
            continue
        name = names.pop()
        if named.get(name) == {author_id} and bearers.get(name, {author_id}) == {author_id}:
            for byline_id in ids:
                if outcome.placements[byline_id].group == group:
                    outcome.placements[byline_id] = Placement(
                        author_id, None, pair.score, evidence_text("name", ONLY_NAMESAKE)
                    )

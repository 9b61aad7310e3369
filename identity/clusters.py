"""Grouping the bylines of a name block into people, under constraints.

Order of work in a block:

1. must-links: bylines given as one group (a provisional record held here),
   then one ORCID, then one source author id, make one group, unless a
   cannot-link forbids it;
2. agglomeration over the pairwise scores of bylines (average linkage by
   default, complete on request), merging only above the precision-first
   threshold;
3. a second pass on the groups themselves: each group's evidence is pooled
   (all its co-authors, places, topics...) and groups are weighed against each
   other the way two bylines are, again merging only above the threshold;
4. a group of one to three bylines joins the one group its pooled evidence
   clearly points to (``identity.attach``);
5. what remains between the candidate and the merge threshold is returned as
   candidates, each with its evidence, for an owner or staff to decide.

Cannot-links always win: two different ORCIDs, two bylines of one work, and
any pair listed by an owner or staff are never put together. Two groups that
carry different source author ids are not merged automatically either (only
an ORCID proves that two ids are one person); they can be candidates.
"""

from __future__ import annotations

import heapq
import math
import multiprocessing
from collections import defaultdict
from dataclasses import dataclass, field

from identity.attach import attach
from identity.circles import with_coauthor_ids
from identity.evidence import NEVER, Byline, Evidence, Profile, name_level, profile_of, weigh
from identity.keys import Frequencies
from identity.names import INCOMPATIBLE, first_form, parse_name

ALL_PAIRS_UP_TO = 50  # blocks up to this size weigh every pair of groups
ALL_PAIRS_FEW_NAMES = 400  # and up to this size when they know one or two first names
MOST_HOLDERS = 200  # a key held by more groups than this finds no neighbours


@dataclass(frozen=True)
class Thresholds:
    merge: float = 0.9  # merge two groups at or above this score
    candidate: float = 0.5  # propose them as one person at or above this one
    linkage: str = "average"  # or "complete"
    pooled: bool = True  # second pass on pooled evidence
    attach: bool = True  # small groups join the one group their evidence points to


@dataclass
class Candidate:
    """Two groups that may be one person, with the evidence for it."""

    left: int
    right: int
    score: float
    reasons: list[str]


@dataclass
class Group:
    profile: Profile
    forbidden: set[str] = field(default_factory=set)  # byline ids it may never join

    @property
    def ids(self) -> list[str]:
        return self.profile.ids


def _copy(profile: Profile) -> Profile:
    copy = Profile()
    copy.absorb(profile)
    return copy


def forbidden(a: Group, b: Group) -> bool:
    """A cannot-link between two groups: listed pairs, two ORCIDs, one work."""
    pa, pb = a.profile, b.profile
    if pa.orcids and pb.orcids and not (pa.orcids & pb.orcids):
        return True
    if pa.works & pb.works:
        return True
    smaller, larger = (a, b) if len(a.forbidden) < len(b.forbidden) else (b, a)
    return any(i in smaller.forbidden for i in larger.ids) if smaller.forbidden else False


def automatic(a: Group, b: Group) -> bool:
    """Whether two groups may merge without a person deciding."""
    if forbidden(a, b):
        return False
    pa, pb = a.profile, b.profile
    if pa.orcids & pb.orcids:
        return True
    if pa.source_ids and pb.source_ids and not (pa.source_ids & pb.source_ids):
        return False
    return name_level(pa, pb) != INCOMPATIBLE


class Block:
    """The bylines of one name block and the groups they form."""

    def __init__(
        self,
        profiles: list[Profile],
        cannot: dict[str, set[str]],
        freq: Frequencies,
        together: dict[str, str] | None = None,
    ):
        self.freq = freq
        self.together = together or {}
        self.groups: dict[int, Group] = {}
        for index, profile in enumerate(profiles):
            self.groups[index] = Group(_copy(profile), set(cannot.get(profile.ids[0], ())))
        self.crowd = crowd_of(profiles)
        self.merged_into: dict[int, int] = {}

    def find(self, index: int) -> int:
        """The group a group now belongs to, after merges."""
        while index in self.merged_into:
            index = self.merged_into[index]
        return index

    def may_merge(self, a: int, b: int) -> bool:
        return automatic(self.groups[a], self.groups[b])

    def merge(self, a: int, b: int) -> int:
        keep, gone = (
            (a, b) if self.groups[a].profile.size >= self.groups[b].profile.size else (b, a)
        )
        self.groups[keep].profile.absorb(self.groups[gone].profile)
        self.groups[keep].forbidden |= self.groups[gone].forbidden
        del self.groups[gone]
        self.merged_into[gone] = keep
        return keep

    def weigh(self, a: int, b: int, explain: bool = False) -> Evidence:
        return weigh(self.groups[a].profile, self.groups[b].profile, self.freq, self.crowd, explain)

    def must_link(self) -> None:
        """Given groups, one ORCID, then one source author id: one group, unless forbidden."""
        for attribute in ("together", "orcids", "source_ids"):
            owners: dict[str, int] = {}
            for start in sorted(self.groups):
                for key in sorted(self._keys(start, attribute)):
                    index = self.find(start)
                    other = self.find(owners.setdefault(key, index))
                    if other != index and not forbidden(self.groups[other], self.groups[index]):
                        owners[key] = self.merge(other, index)

    def _keys(self, start: int, attribute: str):
        profile = self.groups[self.find(start)].profile
        if attribute == "together":
            return {self.together[i] for i in profile.ids if i in self.together}
        return getattr(profile, attribute)


def crowd_of(profiles: list[Profile]) -> int:
    """How many different full first names the block holds: initials are that ambiguous."""
    firsts = {
        name.first.full
        for profile in profiles
        for name in profile.names
        if name.first and name.first.full
    }
    return max(1, len(firsts))


class Neighbours:
    """Which groups of a block are worth weighing against which, kept up to date as
    groups merge: in a small block (or one that knows few first names), all of them;
    else those that share a key (a co-author, a place, a reference, a name...)."""

    def __init__(self, block: Block):
        groups = block.groups
        self.everything = len(groups) <= ALL_PAIRS_UP_TO or (
            block.crowd <= 2 and len(groups) <= ALL_PAIRS_FEW_NAMES
        )
        self.index: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.keys: dict[int, set[tuple[str, str]]] = {}
        for index, group in groups.items():
            self.add(index, group.profile)

    def add(self, index: int, profile: Profile) -> None:
        keys = set(_index_keys(profile))
        self.keys[index] = keys
        for key in keys:
            self.index[key].add(index)

    def remove(self, index: int) -> None:
        for key in self.keys.pop(index, ()):
            self.index[key].discard(index)

    def of(self, index: int) -> set[int]:
        if self.everything:
            found = set(self.keys)
        else:
            found = set()
            for key in self.keys[index]:
                holders = self.index[key]
                if len(holders) <= MOST_HOLDERS:
                    found |= holders
        found.discard(index)
        return found

    def pairs(self) -> set[tuple[int, int]]:
        return {(a, b) if a < b else (b, a) for a in self.keys for b in self.of(a)}


def _index_keys(profile: Profile):
    yield from (("c", k) for k in profile.coauthors)
    yield from (("a", k) for k in profile.coauthor_ids)
    yield from (("i", k) for k in profile.institutions)
    yield from (("f", k) for k in profile.affiliation_words)
    yield from (("r", k) for k in profile.references)
    yield from (("w", k) for k in profile.works)
    yield from (("r", k) for k in profile.works)
    yield from (("o", k) for k in profile.orcids)
    yield from (("s", k) for k in profile.source_ids)
    yield from (("n", f"{n.block}:{first_form(n)}") for n in profile.names)


def agglomerate(block: Block, thresholds: Thresholds) -> dict[tuple[int, int], float]:
    """Average (or complete) linkage over the pairwise scores of the block's bylines.

    Returns the scores of the pairs of groups that no merge touched (still valid)."""
    linked: dict[int, dict[int, float]] = defaultdict(dict)
    for a, b in Neighbours(block).pairs():
        score = block.weigh(a, b).score
        linked[a][b] = linked[b][a] = score
    sizes = _link_loop(block, linked, thresholds)
    return {
        (a, b): score
        for a, row in linked.items()
        if sizes.get(a) == 1
        for b, score in row.items()
        if a < b and sizes.get(b) == 1
    }


def _link_loop(block: Block, linked, thresholds: Thresholds) -> dict[int, int]:
    complete = thresholds.linkage == "complete"
    # Groups already joined by a must-link count as one unit.
    sizes = dict.fromkeys(block.groups, 1)
    heap = [(-s, a, b) for a, row in linked.items() for b, s in row.items() if a < b]
    heap = [item for item in heap if -item[0] >= thresholds.merge]
    heapq.heapify(heap)
    while heap:
        negative, a, b = heapq.heappop(heap)
        if a not in block.groups or b not in block.groups:
            continue
        current = _pair_value(linked, sizes, a, b, complete)
        if not math.isclose(current, -negative) or current < thresholds.merge:
            continue
        if not automatic(block.groups[a], block.groups[b]):
            continue
        keep = block.merge(a, b)
        gone = b if keep == a else a
        _fold_rows(linked, sizes, keep, gone, complete)
        for other in linked[keep]:
            value = _pair_value(linked, sizes, keep, other, complete)
            if value >= thresholds.merge:
                heapq.heappush(heap, (-value, min(keep, other), max(keep, other)))
    return sizes


def _pair_value(linked, sizes, a: int, b: int, complete: bool) -> float:
    total = linked[a].get(b, 0.0)
    return total if complete else total / (sizes[a] * sizes[b])


def _fold_rows(linked, sizes, keep: int, gone: int, complete: bool) -> None:
    """After a merge, the row of the kept group sums (or takes the minimum of) both rows."""
    row_keep, row_gone = linked[keep], linked.pop(gone, {})
    row_keep.pop(gone, None)
    row_gone.pop(keep, None)
    for other in set(row_keep) | set(row_gone):
        if complete:
            # A pair never weighed counts as no evidence: the minimum is then 0.
            value = min(row_keep.get(other, 0.0), row_gone.get(other, 0.0))
        else:
            value = row_keep.get(other, 0.0) + row_gone.get(other, 0.0)
        row_keep[other] = value
        linked[other][keep] = value
        linked[other].pop(gone, None)
    sizes[keep] += sizes.pop(gone)


def pool(block: Block, thresholds: Thresholds, known=None) -> Neighbours:
    """Second pass: weigh groups on their pooled evidence and merge the sure ones, best
    first; a merged group is weighed again against its neighbours."""
    neighbours = Neighbours(block)
    version = dict.fromkeys(block.groups, 0)
    heap: list[tuple[float, int, int, int, int]] = []

    def push(a: int, b: int, score: float | None = None) -> None:
        if score is None:
            score = block.weigh(a, b).score
        if score >= thresholds.merge:
            heapq.heappush(heap, (-score, a, b, version[a], version[b]))

    known = known or {}
    for pair in neighbours.pairs():
        push(*pair, known.get(pair))
    while heap:
        _, a, b, seen_a, seen_b = heapq.heappop(heap)
        if version.get(a) != seen_a or version.get(b) != seen_b:
            continue
        if not automatic(block.groups[a], block.groups[b]):
            continue
        keep = block.merge(a, b)
        neighbours.remove(a)
        neighbours.remove(b)
        neighbours.add(keep, block.groups[keep].profile)
        version.pop(b if keep == a else a)
        version[keep] += 1
        for other in neighbours.of(keep):
            push(keep, other)
    return neighbours


def candidates(
    block: Block, thresholds: Thresholds, neighbours: Neighbours | None = None, per_group: int = 5
) -> list[Candidate]:
    """Pairs of groups between the thresholds, best first, with their evidence."""
    pairs = (neighbours or Neighbours(block)).pairs()
    found = []
    for a, b in pairs:
        if forbidden(block.groups[a], block.groups[b]):
            continue
        evidence = block.weigh(a, b)
        if evidence.logit > NEVER / 2 and evidence.score >= thresholds.candidate:
            found.append((evidence.score, a, b))
    found.sort(reverse=True)
    taken: dict[int, int] = defaultdict(int)
    result = []
    for score, a, b in found:
        if taken[a] >= per_group or taken[b] >= per_group:
            continue
        taken[a] += 1
        taken[b] += 1
        result.append(Candidate(a, b, score, block.weigh(a, b, explain=True).reasons))
    return result


@dataclass
class Resolution:
    """People found among the bylines, and the pairs of them that may be one."""

    clusters: list[list[str]]  # byline ids, one list per person
    candidates: list[Candidate]  # indices into clusters

    def cluster_of(self) -> dict[str, int]:
        return {i: index for index, ids in enumerate(self.clusters) for i in ids}


def resolve_block(
    profiles: list[Profile],
    cannot: dict[str, set[str]],
    freq: Frequencies,
    thresholds: Thresholds = Thresholds(),
    together: dict[str, str] | None = None,
) -> tuple[list[list[str]], list[Candidate]]:
    """Groups and candidates of one block (indices of the candidates are the block's)."""
    block = Block(profiles, cannot, freq, together)
    block.must_link()
    known = agglomerate(block, thresholds)
    neighbours = pool(block, thresholds, known) if thresholds.pooled else Neighbours(block)
    if thresholds.attach:
        attach(block, neighbours)
    found = candidates(block, thresholds, neighbours)
    order = sorted(block.groups, key=lambda i: min(block.groups[i].ids))
    position = {index: n for n, index in enumerate(order)}
    clusters = [list(block.groups[i].ids) for i in order]
    for candidate in found:
        candidate.left, candidate.right = position[candidate.left], position[candidate.right]
    return clusters, found


def blocks_of(bylines: list[Byline], profiles: list[Profile]) -> list[list[int]]:
    """Positions of the bylines per name block; blocks an ORCID or source id spans are joined."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    keys = [parse_name(b.name).block for b in bylines]
    seen: dict[str, str] = {}
    for key, profile in zip(keys, profiles, strict=True):
        find(key)
        for token in [f"o:{o}" for o in profile.orcids] + [f"s:{s}" for s in profile.source_ids]:
            if token in seen:
                parent[find(key)] = find(seen[token])
            else:
                seen[token] = key
    grouped: dict[str, list[int]] = defaultdict(list)
    for position, key in enumerate(keys):
        grouped[find(key)].append(position)
    return [grouped[k] for k in sorted(grouped)]


def resolve(
    bylines,
    cannot_link=(),
    thresholds: Thresholds = Thresholds(),
    jobs: int = 1,
    rounds: int = 2,
    together=(),
    records: int = 0,
) -> Resolution:
    """Group bylines into people; ``cannot_link`` lists pairs of byline ids kept apart,
    ``together`` lists groups of byline ids that start as one person (a group may still
    join others, unlike bylines sharing a source author id).

    After a first round, each byline learns which record its co-authors went
    to, and the next round counts a co-author shared by record, not by name:
    "Y. Wang" on two works is one person when both went to one record, and
    co-authors who wrote with each other's co-authors count too (``circles``).
    ``records``: how many records the co-author ids given on the bylines are drawn
    from (all the records held); after a round, at least that round's clusters.
    Blocks are shared out over ``jobs`` processes.
    """
    original = list(bylines)
    joined = {i: f"g{n}" for n, ids in enumerate(together) for i in ids}
    cannot: dict[str, set[str]] = defaultdict(set)
    for left, right in cannot_link:
        cannot[left].add(right)
        cannot[right].add(left)
    resolution = _resolve_round(original, cannot, thresholds, jobs, joined, records)
    for _ in range(rounds - 1):
        linked = with_coauthor_ids(original, resolution.cluster_of())
        known = max(records, len(resolution.clusters))
        resolution = _resolve_round(linked, cannot, thresholds, jobs, joined, known)
    return resolution


_STATE: dict = {}


def _resolve_chunk(chunk: list[list[int]]):
    profiles, cannot, freq, thresholds, together = (
        _STATE[k] for k in ("profiles", "cannot", "freq", "thresholds", "together")
    )
    return [
        resolve_block([profiles[p] for p in block], cannot, freq, thresholds, together)
        for block in chunk
    ]


def _chunks(blocks: list[list[int]], jobs: int) -> list[list[list[int]]]:
    """Blocks dealt out largest first, in many small chunks so the processes stay busy."""
    ordered = sorted(blocks, key=len, reverse=True)
    chunks: list[list[list[int]]] = [[] for _ in range(max(jobs * 16, 1))]
    for n, block in enumerate(ordered):
        chunks[n % len(chunks)].append(block)
    return [c for c in chunks if c]


def _resolve_round(
    bylines, cannot, thresholds: Thresholds, jobs: int, together, records: int
) -> Resolution:
    profiles = [profile_of(b) for b in bylines]
    freq = Frequencies(records=records)
    for profile in profiles:
        freq.add(profile)
    blocks = blocks_of(bylines, profiles)
    _STATE.update(
        profiles=profiles, cannot=cannot, freq=freq, thresholds=thresholds, together=together
    )
    try:
        if jobs <= 1:
            results = [_resolve_chunk([block]) for block in blocks]
        else:
            # Forked processes read the profiles this one holds; only results travel.
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                results = pool.map(_resolve_chunk, _chunks(blocks, jobs), chunksize=1)
    finally:
        _STATE.clear()
    clusters: list[list[str]] = []
    found: list[Candidate] = []
    for chunk in results:
        for block_clusters, block_found in chunk:
            offset = len(clusters)
            clusters.extend(block_clusters)
            for candidate in block_found:
                candidate.left += offset
                candidate.right += offset
                found.append(candidate)
    found.sort(key=lambda c: -c.score)
    return Resolution(clusters, found)

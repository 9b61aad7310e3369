"""Small groups joined to the one group of their block their evidence points to.

Agglomeration weighs a group of one to three bylines against a large group of
the same person byline by byline, so what they share is diluted by average
linkage; the pooled pass weighs them as wholes but needs the merge threshold,
which a frequent name seldom reaches on the little a small group knows. Yet a
small group that shares real evidence (co-authors, a place, a venue, references)
with one group of its block, and clearly less with any other, is most likely
that group's person.

After both passes, each small group is weighed on its pooled evidence against
the groups of its block it shares a key with (no smaller than itself), and
joins the best one when:

- the merge is automatic: no cannot-link, no two ORCIDs, no two source author
  ids, names that agree;
- the evidence beyond the names reaches ``BEYOND_NAMES``: a name alone never
  attaches anything;
- the log-odds, the name prior included (the more bylines a name has, the more
  people bear it), reach ``ATTACH_LOGIT`` plus ``PER_GROUP`` times the log of
  the number of groups in the block: the more groups a block holds, the likelier
  one of them matches by chance;
- the best group beats the runner-up by ``MARGIN`` log-odds: two groups about
  as good leave the small group alone (a candidate for review, as before).

That rule prices every group as one more namesake: in a block of a frequent name
it asks a lot even of a group that holds most of the block's bylines. So a small
group also joins the best group when, by share, it is that group's person with a
chance of at least ``SHARE_POSTERIOR``: each candidate group weighs its share of the
block's other bylines times the odds its evidence beyond the names gives, against
the share of bylines in groups that share no key with the small group (evidence
neither way) and every candidate's weight. The evidence beyond the names must still
reach ``SHARE_BEYOND``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from identity.evidence import Evidence

SMALL = 3  # groups of at most this many bylines may attach
BEYOND_NAMES = 3.0  # least log-odds from evidence other than the names
ATTACH_LOGIT = -2.0  # least log-odds, before the allowance for the groups of the block
PER_GROUP = 0.5  # log-odds asked more for each unit of the log of the block's groups
MARGIN = 1.0  # least lead, in log-odds, of the best group over the runner-up
SHARE_BEYOND = 3.0  # least log-odds beyond the names for a choice made by share
SHARE_POSTERIOR = 0.9  # least chance, by share, that the small group is the target's


class Block(Protocol):
    """The groups of a name block, as ``identity.clusters.Block`` holds them."""

    groups: dict

    def weigh(self, a: int, b: int) -> Evidence: ...
    def may_merge(self, a: int, b: int) -> bool: ...
    def find(self, index: int) -> int: ...
    def merge(self, a: int, b: int) -> int: ...


class Neighbours(Protocol):
    """Which groups of a block share an index key, as ``identity.clusters.Neighbours`` tells."""

    def of(self, index: int) -> set[int]: ...
    def remove(self, index: int) -> None: ...
    def add(self, index: int, profile) -> None: ...


@dataclass(frozen=True)
class Choice:
    """The group a small group would join, and how clearly."""

    small: int
    target: int
    logit: float
    beyond: float
    runner_up: float
    groups: int  # groups of the block when the choice was made
    posterior: float = 0.0  # chance the small group is the target's person, by share

    @property
    def clear(self) -> bool:
        allowance = ATTACH_LOGIT + PER_GROUP * math.log(max(self.groups, 1))
        by_pair = (
            self.beyond >= BEYOND_NAMES
            and self.logit >= allowance
            and self.logit - self.runner_up >= MARGIN
        )
        return by_pair or (self.beyond >= SHARE_BEYOND and self.posterior >= SHARE_POSTERIOR)


def best_group(
    block: Block, neighbours: Neighbours, index: int, bylines: int | None = None
) -> Choice | None:
    """The group of the block that a small group's evidence points to most, if any;
    ``bylines``: how many the block holds, where already counted."""
    small = block.groups[index]
    best: tuple[float, float, int] | None = None
    runner_up = -math.inf
    if bylines is None:
        bylines = sum(group.profile.size for group in block.groups.values())
    bylines -= small.profile.size
    # Of the block's other bylines, what share each candidate group holds, and
    # what that share becomes once weighed by the evidence beyond the names.
    elsewhere, weighed = 1.0, {}
    for other in sorted(neighbours.of(index)):
        group = block.groups[other]
        if group.profile.size < small.profile.size or not block.may_merge(index, other):
            continue
        evidence = block.weigh(index, other)
        share = group.profile.size / max(bylines, 1)
        elsewhere -= share
        weighed[other] = share * math.exp(min(evidence.beyond_names, 30.0))
        if best is None or evidence.logit > best[0]:
            if best is not None:
                runner_up = max(runner_up, best[0])
            best = (evidence.logit, evidence.beyond_names, other)
        else:
            runner_up = max(runner_up, evidence.logit)
    if best is None:
        return None
    posterior = weighed[best[2]] / (max(elsewhere, 0.0) + sum(weighed.values()))
    return Choice(index, best[2], best[0], best[1], runner_up, len(block.groups), posterior)


def attach(block: Block, neighbours: Neighbours) -> int:
    """Join the small groups of a block to the group they clearly belong to.

    Choices are made on the groups as the passes left them and carried out
    strongest first; each is checked again when carried out (two small groups of
    one work never both join one group). Returns how many groups joined another.
    """
    choices = []
    bylines = sum(group.profile.size for group in block.groups.values())
    for index in sorted(block.groups):
        if block.groups[index].profile.size <= SMALL:
            choice = best_group(block, neighbours, index, bylines)
            if choice is not None and choice.clear:
                choices.append(choice)
    joined = 0
    for choice in sorted(choices, key=lambda c: (-c.logit, c.small)):
        small, target = block.find(choice.small), block.find(choice.target)
        if small == target or not block.may_merge(small, target):
            continue
        keep = block.merge(small, target)
        neighbours.remove(small)
        neighbours.remove(target)
        neighbours.add(keep, block.groups[keep].profile)
        joined += 1
    return joined

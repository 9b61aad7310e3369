"""The bylines of one record grouped into communities: the people it may hold.

Where ``resolve`` asks who is who among bylines of many people, this asks how
the bylines of one record (a person as a source or staff put it together) fall
apart: all of them are weighed as one block, whatever name key each prints.
Groups form as ``resolve`` forms them (sure merges, at the merge threshold),
then grow while their pooled evidence reaches the candidate threshold, best
first: what is left are communities that share nothing worth even a merge
candidate. Evidence that shows only on pooled groups (two circles of
co-authors with none in common) keeps two communities apart, which pairs of
single bylines, each with a few co-authors, cannot show.
"""

from __future__ import annotations

from dataclasses import replace

from identity.clusters import Block, Thresholds, agglomerate, pool
from identity.evidence import Byline, profile_of
from identity.keys import Frequencies

PRECISION_FIRST = Thresholds()


def communities(bylines: list[Byline], thresholds: Thresholds = PRECISION_FIRST) -> list[list[str]]:
    """Byline ids per community, in the order of their first byline."""
    profiles = [profile_of(b) for b in bylines]
    if not profiles:
        return []
    freq = Frequencies()
    for profile in profiles:
        freq.add(profile)
    block = Block(profiles, {}, freq)
    block.must_link()
    known = agglomerate(block, thresholds)
    pool(block, thresholds, known)
    pool(block, replace(thresholds, merge=thresholds.candidate))
    return [list(block.groups[i].ids) for i in sorted(block.groups)]

"""Why one byline stands with a group of others, in words a reviewer reads."""

from __future__ import annotations

from identity.clusters import crowd_of
from identity.evidence import Byline, Evidence, Profile, profile_of, weigh
from identity.keys import Frequencies


class Explainer:
    """Weighs bylines against groups of bylines of one resolved set, with reasons."""

    def __init__(self, bylines: list[Byline], records: int = 0):
        """``records``: as ``resolve`` was given it."""
        self.profiles = {b.id: profile_of(b) for b in bylines}
        self.freq = Frequencies(records=records)
        for profile in self.profiles.values():
            self.freq.add(profile)
        self.crowd = crowd_of(list(self.profiles.values()))

    def pooled(self, ids) -> Profile:
        pooled = Profile()
        for byline_id in ids:
            pooled.absorb(self.profiles[byline_id])
        return pooled

    def weigh(self, byline_id: str, group_ids) -> Evidence:
        """The evidence that ``byline_id`` is the person of the bylines ``group_ids``."""
        others = [i for i in group_ids if i != byline_id]
        if not others:
            return Evidence(0.0, [])
        return weigh(self.pooled([byline_id]), self.pooled(others), self.freq, self.crowd, True)

"""The keys bylines are compared by, and how often each occurs among those resolved.

Text is folded (accents off, lower case) and cut into words; affiliations keep
only the words that name a place; co-authors are kept by name block with the
first names printed. :class:`Frequencies` counts, over all the bylines being
resolved, how many hold each key: a rare key says more than a frequent one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from identity.names import Name, first_form, fold, parse_name
from identity.tables import GENERIC_WORDS, STOP_WORDS

_WORD = re.compile(r"[a-z][a-z0-9]+")
AFFILIATION_CAP = 3.5  # most that a shared institution adds
FEW_BYLINES = 20  # a key held by no more bylines than this is never a frequent one
CROWDED_SURNAME = 5  # distinct first names on one surname that make it a frequent one
SMALL_SAMPLE = 200  # works (or bylines) below which shares of keys are not read as frequencies


def normalise_orcid(value: str) -> str:
    found = re.search(r"(\d{4}-?\d{4}-?\d{4}-?\d{3}[\dXx])", value or "")
    return found.group(1).replace("-", "").upper() if found else ""


def text_words(texts) -> set[str]:
    return set(_words_of(tuple(texts)))


@lru_cache(maxsize=1 << 16)
def _words_of(texts: tuple[str, ...]) -> frozenset[str]:
    words = set()
    for text in texts:
        words.update(w for w in _WORD.findall(fold(text)) if len(w) > 3 and w not in STOP_WORDS)
    return frozenset(words)


def affiliation_words(texts) -> set[str]:
    return set(_affiliation_words_of(tuple(texts)))


@lru_cache(maxsize=1 << 16)
def _affiliation_words_of(texts: tuple[str, ...]) -> frozenset[str]:
    words = {w for w in _words_of(texts) if w not in GENERIC_WORDS}
    words |= {w.lower() for text in texts for w in re.findall(r"\b[A-Z]{2,}\b", text)}
    return frozenset(words)


def coauthor_keys(names) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    for raw in names:
        name = parse_name(raw)
        if name.block and not name.block.startswith("_"):
            keys.setdefault(name.block, set()).add(first_form(name))
    return keys


@dataclass(slots=True)
class Frequencies:
    """How often keys occur in the bylines being resolved: rare ones say more."""

    total: int = 0
    venues: Counter = field(default_factory=Counter)
    affiliation_words: Counter = field(default_factory=Counter)
    words: Counter = field(default_factory=Counter)
    topics: Counter = field(default_factory=Counter)
    institutions: Counter = field(default_factory=Counter)
    first_names: dict[str, set[str]] = field(default_factory=dict)  # surname -> first names
    full_names: Counter = field(default_factory=Counter)  # bylines per block and first name
    blocks: Counter = field(default_factory=Counter)  # bylines per block
    block_firsts: dict[str, set[str]] = field(default_factory=dict)  # block -> first names
    works_seen: set[str] = field(default_factory=set)
    records: int = 0  # records co-author ids are drawn from (0: unknown)
    cited: Counter = field(default_factory=Counter)  # works citing each reference
    citations: int = 0  # references counted, all works

    def add(self, profile) -> None:
        """Count a byline: its affiliation once per byline, its work's keys once per work."""
        self.total += 1
        self.affiliation_words.update(profile.affiliation_words)
        self.institutions.update(profile.institutions)
        for name in profile.names:
            self.blocks[name.block] += 1
            self.full_names[full_key(name)] += 1
            if name.first and name.first.full and name.surname:
                self.first_names.setdefault(name.surname, set()).add(name.first.full)
                self.block_firsts.setdefault(name.block, set()).add(name.first.full)
        fresh = profile.works - self.works_seen
        if fresh:
            self.works_seen |= fresh
            self.venues.update(profile.venues)
            self.words.update(profile.words)
            self.topics.update(profile.topics)
            self.cited.update(profile.references)
            self.citations += len(profile.references)

    @property
    def works(self) -> int:
        return max(1, len(self.works_seen))

    def crowded(self, name: Name) -> bool:
        """A surname borne here by many different first names: namesakes are likely."""
        return len(self.first_names.get(name.surname, ())) >= CROWDED_SURNAME

    def rare(self, counter: Counter, key: str, share: float, floor: int = 3) -> bool:
        """Whether a key is held by few: bylines for affiliations, works for the rest."""
        total = self.total if counter is self.affiliation_words else self.works
        # A few hundred works say nothing of how frequent a key is in a field (an
        # author's own feed holds their subject on every work): until the set is
        # that large, a key counts as frequent only past a share of that size.
        return counter.get(key, 0) <= max(floor, share * max(total, SMALL_SAMPLE))

    def byline_weight(self, counter: Counter, key: str, floor: float) -> float:
        """Log-odds of a key shared by two bylines, from the share of bylines holding it."""
        count = counter.get(key, 0)
        if count <= FEW_BYLINES:
            floor = max(floor, 1.0)  # in a small set of bylines, shares say little
        share = max(count, 1) / max(self.total, 1)
        return min(AFFILIATION_CAP, max(floor, math.log(0.5 / share)))

    def share(self, counter: Counter, key: str) -> float:
        return max(counter.get(key, 0), 1) / self.works


def full_key(name: Name) -> str:
    return f"{name.block}:{first_form(name)}"

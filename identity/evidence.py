"""What two bylines, or two groups of bylines, have in common, and what it weighs.

A :class:`Byline` is one author position on one work, as a source prints it.
It is read once into a :class:`Profile` (sets of comparable keys); the bylines
of a group merge into one profile, so the same weighing serves a pair of
bylines and a pair of clusters. :func:`weigh` adds log-odds for each kind of
evidence to a prior from the names, and keeps human-readable reasons
("3 shared co-authors", "EPFL") for those who review a merge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from identity.keys import (
    Frequencies,
    affiliation_words,
    coauthor_keys,
    full_key,
    normalise_orcid,
    text_words,
)
from identity.names import (
    EXACT,
    FULL,
    INCOMPATIBLE,
    INITIALS,
    SURNAME_ONLY,
    VARIANT,
    Name,
    compatible,
    fold,
    parse_name,
    variants,
)
from identity.tables import COMMON_GIVEN, COMMON_SURNAMES

NEVER = -1e9  # a log-odds no evidence can overcome
SUBJECT_CAP = 2.5  # most that a shared subject (topics, venue, references, words) adds
COAUTHORS_BY_CHANCE = 30  # co-authors of a group beyond which one shared says less
BYLINES_PER_PERSON = 10  # to turn bylines of one name into a number of people bearing it
COAUTHORS_APART = 8  # co-authors each of two groups must have for none shared to count
INSTITUTIONS_APART = 0.5  # institution ids on both sides, none shared: against
PLACES_APART = 1.0  # printed places on both sides (no ids), no word shared: against
SOURCE_APART = 2.0  # what two source author ids say against one person (see ``weigh``)
CIRCLE_CAP = 2.5  # most that co-authors who wrote with the other side's co-authors add
CIRCLE_CHANCE = 2.0  # log of how many times chance those links must exceed to count
REFERENCES_CAP = 2.0  # most that references shared far beyond chance add past the subject
REFERENCES_CHANCE = 3.0  # log of how many times chance they must exceed to count


@dataclass(slots=True)
class Byline:
    """One author position on one work, with what the source says around it."""

    id: str
    name: str
    work_id: str
    coauthors: tuple[str, ...] = ()
    affiliations: tuple[str, ...] = ()
    institutions: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    references: tuple[str, ...] = ()
    words: tuple[str, ...] = ()  # title (and abstract) text, or its words
    orcid: str = ""
    source_author_id: str = ""
    coauthor_ids: tuple[str, ...] = ()  # the records co-authors are already linked to, if any
    circle_ids: tuple[str, ...] = ()  # records those wrote with (``identity.circles``)


@dataclass(slots=True)
class Profile:
    """The comparable keys of one byline or of a group of bylines."""

    ids: list[str] = field(default_factory=list)
    names: dict[Name, int] = field(default_factory=dict)
    works: set[str] = field(default_factory=set)
    coauthors: dict[str, set[str]] = field(default_factory=dict)  # block key -> first names
    coauthor_ids: set[str] = field(default_factory=set)  # records the co-authors resolve to
    circle_ids: set[str] = field(default_factory=set)  # records those records wrote with
    institutions: set[str] = field(default_factory=set)
    affiliation_words: set[str] = field(default_factory=set)
    affiliations: list[str] = field(default_factory=list)
    topics: set[str] = field(default_factory=set)
    venues: set[str] = field(default_factory=set)
    years: tuple[int, int] | None = None
    references: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    orcids: set[str] = field(default_factory=set)
    source_ids: set[str] = field(default_factory=set)

    @property
    def size(self) -> int:
        return len(self.ids)

    def absorb(self, other: Profile) -> None:
        self.ids.extend(other.ids)
        for name, count in other.names.items():
            self.names[name] = self.names.get(name, 0) + count
        self.works |= other.works
        for key, forms in other.coauthors.items():
            self.coauthors.setdefault(key, set()).update(forms)
        self.coauthor_ids |= other.coauthor_ids
        self.circle_ids |= other.circle_ids
        self.institutions |= other.institutions
        self.affiliation_words |= other.affiliation_words
        self.affiliations.extend(a for a in other.affiliations if a not in self.affiliations)
        self.topics |= other.topics
        self.venues |= other.venues
        if other.years:
            low, high = self.years or other.years
            self.years = (min(low, other.years[0]), max(high, other.years[1]))
        self.references |= other.references
        self.words |= other.words
        self.orcids |= other.orcids
        self.source_ids |= other.source_ids


def profile_of(byline: Byline) -> Profile:
    """Read one byline into the keys that are compared."""
    own = parse_name(byline.name)
    coauthors = coauthor_keys(byline.coauthors)
    orcid = normalise_orcid(byline.orcid)
    year = byline.year
    return Profile(
        ids=[byline.id],
        names={own: 1},
        works={byline.work_id},
        coauthors=coauthors,
        coauthor_ids=set(byline.coauthor_ids),
        circle_ids=set(byline.circle_ids),
        institutions={i for i in byline.institutions if i},
        affiliation_words=affiliation_words(byline.affiliations),
        affiliations=[a for a in byline.affiliations if a][:3],
        topics={t for t in byline.topics if t},
        venues={fold(byline.venue).strip()} if byline.venue else set(),
        years=(year, year) if year else None,
        references={r for r in byline.references if r},
        words=text_words(byline.words),
        orcids={orcid} if orcid else set(),
        source_ids={byline.source_author_id} if byline.source_author_id else set(),
    )


@dataclass(slots=True)
class Evidence:
    logit: float
    reasons: list[str]
    prior: float = 0.0  # the part of the log-odds the names alone give

    @property
    def beyond_names(self) -> float:
        """Log-odds from everything but the names (co-authors, places, subject...)."""
        return self.logit - self.prior

    @property
    def score(self) -> float:
        if self.logit <= NEVER / 2:
            return 0.0
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.logit))))


NAME_PRIOR = {EXACT: 0.5, FULL: 0.0, VARIANT: -1.0, INITIALS: -1.0, SURNAME_ONLY: -4.0}
LEVEL_WORDS = {
    EXACT: "same full name",
    FULL: "same first name",
    VARIANT: "first name variant",
    INITIALS: "initials agree",
    SURNAME_ONLY: "surname only",
}


def name_level(a: Profile, b: Profile) -> int:
    """Best agreement between the names of two groups, or 0 when any two disagree."""
    best = INCOMPATIBLE
    for left in a.names:
        for right in b.names:
            level = _compatible_raw(left.raw, right.raw)
            if level == INCOMPATIBLE:
                return INCOMPATIBLE
            best = max(best, level)
    return best


_PAIR_CACHE: dict[tuple[str, str], int] = {}


def _compatible_raw(left: str, right: str) -> int:
    key = (left, right) if left <= right else (right, left)
    level = _PAIR_CACHE.get(key)
    if level is None:
        if len(_PAIR_CACHE) > 1 << 20:
            _PAIR_CACHE.clear()
        level = _PAIR_CACHE[key] = compatible(left, right)
    return level


def weigh(
    a: Profile, b: Profile, freq: Frequencies, crowd: int = 1, explain: bool = False
) -> Evidence:
    """Log-odds that two groups of bylines are one person, with the reasons."""
    reasons: list[str] | None = [] if explain else None
    if a.orcids and b.orcids and not (a.orcids & b.orcids):
        return Evidence(NEVER, ["different ORCIDs"])
    if a.works & b.works:
        return Evidence(NEVER, ["two authors of one work"])
    level = name_level(a, b)
    if level == INCOMPATIBLE:
        return Evidence(NEVER, ["names disagree"])
    prior = logit = _name_prior(a, b, level, crowd, freq, reasons)
    if a.source_ids and b.source_ids and not (a.source_ids & b.source_ids):
        # The source that gave each side its id judged them two people, on evidence not
        # all seen here (the name it saw too): only evidence beyond the name says otherwise.
        logit -= SOURCE_APART
    if a.orcids & b.orcids:
        logit += 12.0
        _say(reasons, "same ORCID")
    logit += _coauthor_evidence(a, b, freq, reasons)
    logit += _affiliation_evidence(a, b, freq, reasons)
    # Topics, venue, references and words all say "same subject": together they
    # weigh no more than one strong clue would.
    subject = (
        _topic_evidence(a, b, freq, reasons)
        + _venue_evidence(a, b, freq, reasons)
        + _reference_evidence(a, b, reasons)
        + _word_evidence(a, b, freq, reasons)
    )
    logit += min(subject, SUBJECT_CAP)
    logit += _cited_beyond_chance(a, b, level, freq, reasons)
    logit += _year_evidence(a, b, reasons)
    return Evidence(logit, reasons or [], prior)


def _say(reasons: list[str] | None, text: str) -> None:
    if reasons is not None:
        reasons.append(text)


def _name_prior(
    a: Profile, b: Profile, level: int, crowd: int, freq: Frequencies, reasons
) -> float:
    """Log-odds from the names alone: how well they agree, and how many may bear them.

    A rare surname makes namesakes unlikely. On a frequent one, full first
    names that agree are as ambiguous as the full name is frequent here, and
    initials as the block is large or knows many first names behind the initial.
    """
    prior = NAME_PRIOR[level]
    names = [*a.names, *b.names]
    common = any(n.is_common or freq.crowded(n) for n in names)
    if level >= VARIANT:
        if common:
            bearers = max(freq.full_names[full_key(n)] for n in names) / BYLINES_PER_PERSON
            floor = 2.5 if any(n.given_is_common for n in names) else 1.5
            prior -= max(floor, 1.0 + math.log(max(bearers, 1.0)))
        else:
            prior += 1.0
    elif common:
        bearers = max(freq.blocks[n.block] for n in names) / BYLINES_PER_PERSON
        prior -= 1.0 + max(math.log(crowd), math.log(max(bearers, 1.0)))
    else:
        # Behind the initial, the block knows one first name or several.
        prior += 2.0 if crowd == 1 else 1.0 - math.log(crowd)
    if _middles_agree(a, b):
        prior += 0.7
    _say(reasons, LEVEL_WORDS[level])
    return prior


def _middles_agree(a: Profile, b: Profile) -> bool:
    """Both sides print a middle name or initial, and the middles agree."""
    left = {n.given[1].initial for n in a.names if len(n.given) > 1}
    right = {n.given[1].initial for n in b.names if len(n.given) > 1}
    return len(left) == 1 and left == right


def _coauthor_match(left: set[str], right: set[str], common: bool, firsts: int) -> float:
    """How surely two printings of a co-author's name are one person (0 to 1).

    Full first names that agree: sure, unless the name is a frequent one
    ("Wei Li"). Initials only: as unsure as the number of first names seen
    behind that initial.
    """
    fulls = [(x, y) for x in left for y in right if len(x) > 1 and len(y) > 1]
    agreeing = [x for x, y in fulls if x == y or variants(x, y)]
    if agreeing:
        if not common:
            return 1.0
        return 0.3 if all(x in COMMON_GIVEN for x in agreeing) else 0.6
    if any(len(x) == 1 or len(y) == 1 for x in left for y in right):
        return (0.25 if common else 0.5) / math.sqrt(max(firsts, 1))
    return 0.0


def shared_coauthors(a: Profile, b: Profile, freq: Frequencies | None = None) -> float:
    """Co-authors the two sides share, each counted by how surely it is one person."""
    if len(a.coauthors) > len(b.coauthors):
        a, b = b, a
    total = 0.0
    for key, forms in a.coauthors.items():
        other = b.coauthors.get(key)
        if other:
            surname = key.rpartition("_")[0]
            firsts = len(freq.block_firsts.get(key, ())) if freq else 1
            total += _coauthor_match(forms, other, surname in COMMON_SURNAMES, firsts)
    return total


def _coauthor_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    # A co-author already resolved to one record on both sides is one person for sure.
    shared = max(shared_coauthors(a, b, freq), float(len(a.coauthor_ids & b.coauthor_ids)))
    if not shared:
        # Two groups with many co-authors each and not one in common: two circles.
        known = min(len(a.coauthors), len(b.coauthors))
        if known >= COAUTHORS_APART:
            _say(reasons, "no co-author in common")
            return -min(3.0, known / COAUTHORS_APART)
        return _circle_evidence(a, b, freq, reasons)
    count = round(shared) or 1
    _say(reasons, f"{count} shared co-author{'s' if count > 1 else ''}")
    # The more co-authors a group has, the likelier one of them matches by chance.
    crowd = max(len(a.coauthors), len(b.coauthors)) / COAUTHORS_BY_CHANCE
    more = min(max(shared - 1.0, 0.0), 2.0)
    return 5.0 * min(shared, 1.0) + 2.0 * more - 0.7 * math.log(max(crowd, 1.0))


def _circle_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    """Co-authors of one side who wrote other works with co-authors of the other.

    Each side's co-author records meet the other's circle (``identity.circles``) at
    random as often as the circle is a share of all the records: the links weigh
    the log of how many times that chance they are, less ``CIRCLE_CHANCE`` (one
    field's groups all meet now and then). Without the number of records, nothing.
    """
    if not freq.records:
        return 0.0
    links = len(a.coauthor_ids & b.circle_ids) + len(b.coauthor_ids & a.circle_ids)
    if not links:
        return 0.0
    met = len(a.coauthor_ids) * len(b.circle_ids) + len(b.coauthor_ids) * len(a.circle_ids)
    weight = min(CIRCLE_CAP, math.log(links * freq.records / met) - CIRCLE_CHANCE)
    if weight <= 0:
        return 0.0
    _say(reasons, f"co-authors wrote with each other's co-authors ({links})")
    return weight


def _affiliation_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    """A shared institution (id, or a distinctive word of the printed affiliation),
    weighed by how few bylines carry it: a small institute says more than a big one.
    Two sides that each name places and share none are likelier two people. Printed
    places weigh more against than institution ids do (chosen on the generated sets,
    the real set unchanged): a source gives one byline several ids (a department,
    its university) that another byline of the same person lacks."""
    institutions = a.institutions & b.institutions
    words = a.affiliation_words & b.affiliation_words
    weight = max((freq.byline_weight(freq.institutions, i, 1.0) for i in institutions), default=0)
    best = ""
    for word in words:
        word_weight = freq.byline_weight(freq.affiliation_words, word, 0.0)
        if word_weight > weight:
            weight, best = word_weight, word
    if weight <= 0:
        if a.institutions and b.institutions:
            return -INSTITUTIONS_APART
        if a.affiliation_words and b.affiliation_words and not words:
            _say(reasons, "no place in common")
            return -PLACES_APART
        return 0.0
    if reasons is not None:
        reasons.append(_affiliation_reason(a, b, {best} if best else words))
    return weight


def _affiliation_reason(a: Profile, b: Profile, words: set[str]) -> str:
    for text in a.affiliations + b.affiliations:
        if words & affiliation_words([text]):
            return text if len(text) <= 60 else text[:57] + "..."
    return "same institution"


def _topic_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    if not a.topics or not b.topics:
        return 0.0
    shared = [t for t in a.topics & b.topics if freq.rare(freq.topics, t, 0.3)]
    if not shared:
        return -0.5
    _say(reasons, f"{len(shared)} shared topic{'s' if len(shared) > 1 else ''}")
    return 0.7 if len(shared) == 1 else 1.2


def _venue_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    """A shared venue weighs what its rarity says: a small journal much, arXiv nothing."""
    shared = a.venues & b.venues
    if not shared:
        return 0.0
    venue = min(shared, key=lambda v: freq.share(freq.venues, v))
    weight = min(1.5, max(0.0, math.log(0.3 / freq.share(freq.venues, venue))))
    if weight > 0:
        _say(reasons, f"same venue ({venue})")
    return weight


def _cited_beyond_chance(a: Profile, b: Profile, level: int, freq: Frequencies, reasons) -> float:
    """References shared far beyond what their popularity explains: one reading list.

    Beside the subject (capped with topics and words), two sides that cite many of
    the same works, most of them seldom cited, share more than a field. By chance
    the larger side would hold each reference of the smaller as often as that
    reference is cited among all the citations counted: the shared references
    weigh the log of how many times that they are, less ``REFERENCES_CHANCE``, up
    to ``REFERENCES_CAP``. Lab-mates share a reading list too, and a frequent
    surname with one initial may be two of them: only names agreeing beyond the
    initials count it.
    """
    shared = len(a.references & b.references)
    if shared < 2 or level < VARIANT or not freq.citations:
        return 0.0
    small, large = (a, b) if len(a.references) <= len(b.references) else (b, a)
    cited = sum(freq.cited[r] for r in small.references)
    expected = len(large.references) * cited / freq.citations
    if expected <= 0:  # references the counts never saw: nothing to weigh them by
        return 0.0
    weight = min(REFERENCES_CAP, math.log(shared / expected) - REFERENCES_CHANCE)
    if weight <= 0:
        return 0.0
    _say(reasons, f"{shared} references in common, seldom cited together")
    return weight


def _reference_evidence(a: Profile, b: Profile, reasons) -> float:
    logit = 0.0
    if a.references & b.works or b.references & a.works:
        logit += 1.5
        _say(reasons, "one cites the other")
    shared = len(a.references & b.references)
    if shared:
        _say(reasons, f"{shared} shared reference{'s' if shared > 1 else ''}")
        logit += 1.0 if shared == 1 else 1.8 if shared < 4 else 2.5
    return logit


def _word_evidence(a: Profile, b: Profile, freq: Frequencies, reasons) -> float:
    shared = [w for w in a.words & b.words if freq.rare(freq.words, w, 0.05)]
    if len(shared) < 2:
        return 0.0
    _say(reasons, "title words: " + ", ".join(sorted(shared)[:4]))
    return 0.7 if len(shared) < 4 else 1.4


def _year_evidence(a: Profile, b: Profile, reasons) -> float:
    if not a.years or not b.years:
        return 0.0
    gap = max(a.years[0] - b.years[1], b.years[0] - a.years[1], 0)
    if gap > 30:
        _say(reasons, f"{gap} years apart")
        return -2.0
    if gap > 15:
        _say(reasons, f"{gap} years apart")
        return -0.7
    return 0.2 if gap <= 3 else 0.0

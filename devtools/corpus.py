"""A deterministic synthetic corpus in the OpenAlex snapshot format (one Work per JSON line).

This is for load tests and benchmarks. The records are fake on purpose:

- names are built from syllables;
- work, author, institution and venue ids are in reserved ranges (``W8…``, ``A8…``,
  ``I8…``, ``S8…``, ``T8…``) that OpenAlex has not used so far;
- DOIs use the Crossref test prefix ``10.5555``;
- arXiv numbers are 90000 and up, which no month has reached;
- ORCID iDs are in the ``0009-8…`` block, well beyond the iDs ORCID has issued so far.
  Their checksums are valid.

Only the domain > field > subfield taxonomy is OpenAlex's own, so that topic-based metrics
behave as they do on real data.

The shape of the network is what a benchmark needs:

- Author productivity follows a Pareto law, so a few authors hold many authorships.
- Teams have 1 to 12 members and are mostly small.
- Co-authors are drawn from the lead author's community (a small group of authors), so the
  same pairs meet again.
- Each community has its own topic list, and its works draw topics from it by a Zipf law.

Everything comes from one ``random.Random(seed)``: the same arguments give the same
works, byte for byte. There is no clock. Dates come from the seed too.

``CorpusGenerator.works()`` is a generator. Only the author, institution, venue and topic
pools are kept in memory, never the works, so a million-work corpus streams to disk.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import math
import time
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import accumulate
from pathlib import Path
from random import Random

WORK_ID_BASE = 8_000_000_000  # W8000000001, ...
AUTHOR_ID_BASE = 8_000_000_000  # A8000000001, ...
INSTITUTION_ID_BASE = 8_000_000_000
VENUE_ID_BASE = 8_000_000_000
TOPIC_ID_BASE = 80_000  # T80001, ...
ARXIV_SOURCE = {
    "id": "https://openalex.org/S4306400194",
    "display_name": "arXiv (Cornell University)",
    "issn_l": None,
    "type": "repository",
}
ARXIV_NUMBER_START = 90_000
END_YEAR = 2024  # the last publication year; the snapshot date follows it
FIRST_YEAR = 1975
YEAR_DECAY = 9.0  # publication ages are exponential with this mean: recent years dominate
ARXIV_FIRST_YEAR = 2015  # five-digit arXiv numbers (YYMM.NNNNN) start in 2015
ARXIV_SHARE = 0.20
ORCID_SHARE = 0.30
OPENALEX = "https://openalex.org/"

# Team sizes 1..12, skewed small (mean about 3.6).
TEAM_SIZE_WEIGHTS = (14, 22, 20, 14, 9, 6, 4.5, 3.2, 2.4, 1.8, 1.4, 1.1)

REQUIRED_KEYS = (
    "id",
    "doi",
    "title",
    "display_name",
    "publication_year",
    "publication_date",
    "ids",
    "type",
    "primary_location",
    "authorships",
    "topics",
    "primary_topic",
    "abstract_inverted_index",
    "cited_by_count",
    "counts_by_year",
    "updated_date",
    "created_date",
)

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ven",
    "tor",
    "za",
    "ril",
    "bo",
    "nu",
    "shi",
    "qua",
    "dex",
    "mor",
    "fen",
    "pli",
    "gar",
    "zor",
    "vel",
    "tha",
    "kri",
    "son",
    "mab",
    "yu",
    "dro",
    "lin",
    "paz",
    "wex",
    "ori",
    "sel",
    "tam",
    "bri",
    "cul",
    "nad",
    "eph",
    "gol",
    "hiv",
    "jun",
    "kes",
)
_NOUNS = (
    "models",
    "networks",
    "dynamics",
    "inference",
    "systems",
    "structures",
    "signals",
    "processes",
    "methods",
    "estimators",
    "fields",
    "graphs",
    "markers",
    "responses",
    "patterns",
    "mechanisms",
    "representations",
    "measurements",
    "protocols",
    "spectra",
)
_ADJECTIVES = (
    "Scalable",
    "Robust",
    "Adaptive",
    "Sparse",
    "Stochastic",
    "Latent",
    "Coupled",
    "Hierarchical",
    "Efficient",
    "Nonlinear",
    "Distributed",
    "Bayesian",
    "Emergent",
    "Multiscale",
    "Causal",
    "Temporal",
)
_VERBS = ("study", "model", "measure", "compare", "characterise", "estimate", "simulate")
_FINDINGS = ("improves", "stabilises", "explains", "predicts", "reduces", "reveals")
_COUNTRIES = (
    "US",
    "GB",
    "DE",
    "FR",
    "CN",
    "JP",
    "CA",
    "IN",
    "BR",
    "AU",
    "NL",
    "IT",
    "ES",
    "KR",
    "CH",
    "SE",
    "ZA",
    "MX",
    "PL",
    "IL",
)
_INSTITUTION_TYPES = (
    ("education", 70),
    ("facility", 10),
    ("company", 8),
    ("government", 6),
    ("healthcare", 4),
    ("nonprofit", 2),
)
_WORK_TYPES = (("article", 86), ("review", 5), ("book-chapter", 5), ("dataset", 2), ("other", 2))

# OpenAlex's own taxonomy (subfield id, name, field id); names and ids as OpenAlex gives them.
_DOMAINS = {1: "Life Sciences", 2: "Social Sciences", 3: "Physical Sciences", 4: "Health Sciences"}
_FIELDS = {
    13: ("Biochemistry, Genetics and Molecular Biology", 1),
    17: ("Computer Science", 3),
    18: ("Decision Sciences", 2),
    20: ("Economics, Econometrics and Finance", 2),
    22: ("Engineering", 3),
    26: ("Mathematics", 3),
    27: ("Medicine", 4),
    28: ("Neuroscience", 1),
    31: ("Physics and Astronomy", 3),
    33: ("Social Sciences", 2),
}
_SUBFIELDS = (
    (1702, "Artificial Intelligence", 17),
    (1707, "Computer Vision and Pattern Recognition", 17),
    (1705, "Computer Networks and Communications", 17),
    (1710, "Information Systems", 17),
    (1706, "Computer Science Applications", 17),
    (2613, "Statistics and Probability", 26),
    (2604, "Applied Mathematics", 26),
    (3103, "Astronomy and Astrophysics", 31),
    (3106, "Nuclear and High Energy Physics", 31),
    (3109, "Statistical and Nonlinear Physics", 31),
    (2208, "Electrical and Electronic Engineering", 22),
    (1311, "Genetics", 13),
    (1312, "Molecular Biology", 13),
    (2804, "Cellular and Molecular Neuroscience", 28),
    (2705, "Cardiology and Cardiovascular Medicine", 27),
    (2739, "Public Health, Environmental and Occupational Health", 27),
    (2002, "Economics and Econometrics", 20),
    (1804, "Statistics, Probability and Uncertainty", 18),
    (3312, "Sociology and Political Science", 33),
    (3309, "Library and Information Sciences", 33),
)


def orcid_check_digit(base15: str) -> str:
    """The ISO 7064 11,2 check character of the first 15 digits of an ORCID iD."""
    total = 0
    for char in base15:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    return "X" if check == 10 else str(check)


def synthetic_orcid(number: int) -> str:
    """A checksum-valid ORCID iD in the ``0009-8…`` block, for ``0 <= number < 10**10``."""
    digits = f"00098{number:010d}"
    body = f"{digits[0:4]}-{digits[4:8]}-{digits[8:12]}-{digits[12:15]}"
    return body + orcid_check_digit(digits)


_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def synthetic_ror(number: int) -> str:
    """A ROR-shaped id (leading 0, six base-32 characters, mod 97-10 check digits)."""
    chars = []
    value = number
    for _ in range(6):
        value, digit = divmod(value, 32)
        chars.append(_CROCKFORD[digit])
    core = "0" + "".join(reversed(chars))
    decoded = 0
    for char in core:
        decoded = decoded * 32 + _CROCKFORD.index(char)
    check = 98 - (decoded * 100) % 97
    return f"https://ror.org/{core}{check:02d}"


def inverted_index(words: list[str]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        positions = index.get(word)
        if positions is None:
            index[word] = [position]
        else:
            positions.append(position)
    return index


@dataclass
class CorpusStats:
    works: int = 0
    authorships: int = 0
    arxiv_preprints: int = 0
    authors_in_pool: int = 0
    authors_used: int = 0
    seconds: float = 0.0
    path: str = ""
    bytes_written: int = 0
    _used: bytearray = field(default_factory=bytearray, repr=False)

    def summary(self) -> str:
        rate = self.works / self.seconds if self.seconds else 0.0
        return (
            f"Wrote {self.works:,} works ({self.authorships:,} authorships, "
            f"{self.arxiv_preprints:,} arXiv preprints, {self.authors_used:,} of "
            f"{self.authors_in_pool:,} authors) to {self.path} "
            f"[{self.bytes_written / 1e6:,.1f} MB] in {self.seconds:.1f}s ({rate:,.0f} works/s)"
        )


class _Sampler:
    """Draws indexes with given weights: a bisect over cumulative weights (O(log n))."""

    __slots__ = ("cum", "total", "offset", "last")

    def __init__(self, weights, offset: int = 0):
        self.cum = list(accumulate(weights))
        self.total = self.cum[-1]
        self.offset = offset
        self.last = len(self.cum) - 1

    def draw(self, rng: Random) -> int:
        # Rounding can make random() * total equal total itself.
        index = bisect_right(self.cum, rng.random() * self.total)
        return self.offset + (index if index <= self.last else self.last)


def _zipf_weights(count: int, exponent: float) -> list[float]:
    return [1.0 / (rank**exponent) for rank in range(1, count + 1)]


class CorpusGenerator:
    """Builds the pools for one seed; ``works()`` then yields the Work dicts one at a time."""

    def __init__(self, n_works: int, n_authors: int | None = None, seed: int = 0):
        if n_works < 0:
            raise ValueError("n_works must be >= 0")
        self.n_works = n_works
        self.n_authors = n_authors if n_authors else max(20, n_works // 4)
        self.seed = seed
        self.rng = Random(seed)
        self.stats = CorpusStats(authors_in_pool=self.n_authors)
        self.stats._used = bytearray(self.n_authors)
        rng = self.rng
        # All dates are relative to a snapshot day that the seed picks, never to the clock.
        self.snapshot_day = date(END_YEAR + 1, 1, 1) + timedelta(days=rng.randrange(300))
        self._build_taxonomy(rng)
        self._build_institutions(rng)
        self._build_venues(rng)
        self._build_authors(rng)
        self._build_communities(rng)
        self._arxiv_counters: dict[str, int] = {}
        # Only works from ARXIV_FIRST_YEAR on can carry a YYMM.NNNNN id: raise their rate so
        # that about ARXIV_SHARE of all works are arXiv preprints.
        eligible = 1 - math.exp(-(END_YEAR - ARXIV_FIRST_YEAR + 1) / YEAR_DECAY)
        self._arxiv_rate = min(1.0, ARXIV_SHARE / eligible)
        self._used_generator = False

    # ---- pools --------------------------------------------------------------------------

    def _word(self, rng: Random, low: int, high: int) -> str:
        return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(low, high)))

    def _build_taxonomy(self, rng: Random) -> None:
        self.subfields = []
        for sub_id, sub_name, field_id in _SUBFIELDS:
            field_name, domain_id = _FIELDS[field_id]
            self.subfields.append(
                (
                    {"id": f"{OPENALEX}subfields/{sub_id}", "display_name": sub_name},
                    {"id": f"{OPENALEX}fields/{field_id}", "display_name": field_name},
                    {"id": f"{OPENALEX}domains/{domain_id}", "display_name": _DOMAINS[domain_id]},
                )
            )
        n_topics = min(4000, max(60, self.n_works // 250))
        subfield_sampler = _Sampler(_zipf_weights(len(self.subfields), 0.8))
        self.topics = []  # (id, display_name, subfield index)
        self.topics_by_subfield: list[list[int]] = [[] for _ in self.subfields]
        for number in range(n_topics):
            sub = subfield_sampler.draw(rng)
            name = f"{self._word(rng, 2, 3).capitalize()} {rng.choice(_NOUNS)}"
            if rng.random() < 0.5:
                name += f" and {rng.choice(_NOUNS)}"
            self.topics.append((f"{OPENALEX}T{TOPIC_ID_BASE + number + 1}", name, sub))
            self.topics_by_subfield[sub].append(number)
        self.subfield_sampler = subfield_sampler

    def _build_institutions(self, rng: Random) -> None:
        n_institutions = min(20_000, max(10, self.n_authors // 60))
        type_sampler = _Sampler([w for _, w in _INSTITUTION_TYPES])
        self.institutions = []
        self.affiliation_strings = []
        for number in range(n_institutions):
            kind = _INSTITUTION_TYPES[type_sampler.draw(rng)][0]
            place = self._word(rng, 2, 3).capitalize()
            name = {
                "education": f"University of {place}",
                "facility": f"{place} Research Centre",
                "company": f"{place} Labs",
                "government": f"{place} National Institute",
                "healthcare": f"{place} General Hospital",
                "nonprofit": f"{place} Foundation",
            }[kind]
            country = rng.choice(_COUNTRIES)
            self.institutions.append(
                {
                    "id": f"{OPENALEX}I{INSTITUTION_ID_BASE + number + 1}",
                    "display_name": name,
                    "ror": synthetic_ror(31 * 32**5 + number),
                    "country_code": country,
                    "type": kind,
                }
            )
            self.affiliation_strings.append(f"{name}, {self._word(rng, 2, 3).capitalize()}")
        self.institution_sampler = _Sampler(_zipf_weights(n_institutions, 0.9))

    def _build_venues(self, rng: Random) -> None:
        n_venues = min(5000, max(20, self.n_works // 2000))
        self.venues = []
        for number in range(n_venues):
            word = self._word(rng, 2, 3).capitalize()
            if rng.random() < 0.7:
                name, kind = f"Journal of {word} {rng.choice(_NOUNS).capitalize()}", "journal"
            else:
                name, kind = f"Proceedings of the {word} Symposium", "conference"
            self.venues.append(
                {
                    "id": f"{OPENALEX}S{VENUE_ID_BASE + number + 1}",
                    "display_name": name,
                    "issn_l": None,
                    "type": kind,
                }
            )
        self.venue_sampler = _Sampler(_zipf_weights(n_venues, 1.0))

    def _build_authors(self, rng: Random) -> None:
        n = self.n_authors
        # Productivity: Pareto(alpha=1.3), capped so one author cannot swallow a small corpus.
        cap = max(30.0, 2.0 * n**0.5)
        weights = [min(rng.paretovariate(1.3), cap) for _ in range(n)]
        self.author_weights = weights
        self.global_author_sampler = _Sampler(weights)
        self.author_names: list[str] = []
        self.author_orcids: list[str | None] = []
        self.author_institution: list[int] = []
        orcid_step = 7919  # coprime with 10**10: number -> ORCID is one to one
        orcid_offset = rng.randrange(10**10)
        for number in range(n):
            given = self._word(rng, 2, 2).capitalize()
            family = self._word(rng, 2, 3).capitalize()
            self.author_names.append(f"{given} {family}")
            if rng.random() < ORCID_SHARE:
                orcid = synthetic_orcid((orcid_offset + number * orcid_step) % 10**10)
                self.author_orcids.append(f"https://orcid.org/{orcid}")
            else:
                self.author_orcids.append(None)
            self.author_institution.append(self.institution_sampler.draw(rng))

    def _build_communities(self, rng: Random) -> None:
        """Cut the author list into communities of Pareto-distributed size."""
        self.community_of = [0] * self.n_authors
        self.communities = []  # (author sampler, topic sampler, topic ids, venue ids, words)
        start = 0
        while start < self.n_authors:
            size = min(self.n_authors - start, max(3, min(400, int(rng.paretovariate(1.4) * 12))))
            members = range(start, start + size)
            number = len(self.communities)
            for author in members:
                self.community_of[author] = number
            home = self.subfield_sampler.draw(rng)
            pool = self.topics_by_subfield[home] or [rng.randrange(len(self.topics))]
            n_topics = rng.randint(4, 16)
            chosen: list[int] = []
            for _ in range(n_topics):
                topic = rng.choice(pool) if rng.random() < 0.8 else rng.randrange(len(self.topics))
                if topic not in chosen:
                    chosen.append(topic)
            venues = [self.venue_sampler.draw(rng) for _ in range(rng.randint(2, 5))]
            words = [self._word(rng, 2, 3) for _ in range(6)]
            self.communities.append(
                (
                    _Sampler(self.author_weights[start : start + size], offset=start),
                    _Sampler(_zipf_weights(len(chosen), 1.2)),
                    chosen,
                    venues,
                    words,
                )
            )
            start += size
        self.team_size_sampler = _Sampler(TEAM_SIZE_WEIGHTS)
        self.type_sampler = _Sampler([w for _, w in _WORK_TYPES])

    # ---- works --------------------------------------------------------------------------

    def _team(self, rng: Random) -> tuple[list[int], int]:
        """A lead drawn by productivity, then co-authors mostly from the lead's community."""
        lead = self.global_author_sampler.draw(rng)
        size = self.team_size_sampler.draw(rng) + 1
        community_index = self.community_of[lead]
        community = self.communities[community_index][0]
        team = [lead]
        seen = {lead}
        attempts = 0
        while len(team) < size and attempts < size * 4:
            attempts += 1
            if rng.random() < 0.85:
                member = community.draw(rng)
            else:
                member = self.global_author_sampler.draw(rng)
            if member not in seen:
                seen.add(member)
                team.append(member)
        # The most productive member often leads the group and signs last.
        if len(team) > 2 and rng.random() < 0.5:
            team.sort(key=self.author_weights.__getitem__)
        return team, community_index

    def _authorship(self, rng: Random, author: int, position: str, corresponding: bool) -> dict:
        name = self.author_names[author]
        institution = self.author_institution[author]
        if rng.random() < 0.1:
            given, family = name.split(" ", 1)
            raw_name = f"{given[0]}. {family}"
        else:
            raw_name = name
        return {
            "author_position": position,
            "author": {
                "id": f"{OPENALEX}A{AUTHOR_ID_BASE + author + 1}",
                "display_name": name,
                "orcid": self.author_orcids[author],
            },
            "institutions": [self.institutions[institution]],
            "countries": [self.institutions[institution]["country_code"]],
            "is_corresponding": corresponding,
            "raw_author_name": raw_name,
            "raw_affiliation_strings": [self.affiliation_strings[institution]],
        }

    def _dates(self, rng: Random) -> tuple[date, date, str]:
        year = END_YEAR - min(int(rng.expovariate(1 / YEAR_DECAY)), END_YEAR - FIRST_YEAR)
        published = date(year, 1, 1) + timedelta(days=rng.randrange(365))
        if year >= 2016:
            created = published + timedelta(days=rng.randrange(60))
        else:
            created = date(2016, 6, 24) + timedelta(days=rng.randrange(500))
        created = min(created, self.snapshot_day)
        updated = self.snapshot_day - timedelta(days=rng.randrange(120))
        updated = max(updated, created)
        stamp = (
            f"{updated.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:"
            f"{rng.randrange(60):02d}.{rng.randrange(1_000_000):06d}"
        )
        return published, created, stamp

    def _citations(self, rng: Random, year: int) -> tuple[int, list[dict]]:
        age = END_YEAR - year + 1
        if rng.random() < 0.25:
            return 0, []
        cited = int((rng.paretovariate(1.6) - 1.0) * 3 * min(age, 12) ** 0.8)
        if not cited:
            return 0, []
        # OpenAlex lists the last ten years only, newest first, leaving out empty years.
        years = list(range(max(year, END_YEAR - 9), END_YEAR + 1))
        weights = [1.0 / (1 + abs(y - year - 3)) for y in years]
        total = sum(weights) * (1.0 + 0.3 * (year < END_YEAR - 9))
        counts = []
        for y, w in zip(reversed(years), reversed(weights), strict=True):
            count = int(cited * w / total)
            if count:
                counts.append({"year": y, "cited_by_count": count})
        return cited, counts

    def _arxiv_id(self, published: date) -> str | None:
        month = f"{published.year % 100:02d}{published.month:02d}"
        number = self._arxiv_counters.get(month, ARXIV_NUMBER_START)
        if number > 99_999:
            return None
        self._arxiv_counters[month] = number + 1
        return f"{month}.{number:05d}"

    def works(self) -> Iterator[dict]:
        """Yield ``n_works`` Work dicts. Call once per generator instance."""
        if self._used_generator:
            raise RuntimeError("works() was already called; make a new CorpusGenerator")
        self._used_generator = True
        for number in range(self.n_works):
            yield self._work(WORK_ID_BASE + number + 1)
        self.stats.authors_used = sum(self.stats._used)

    def _work(self, number: int) -> dict:
        rng = self.rng
        work_id = f"{OPENALEX}W{number}"
        team, community_index = self._team(rng)
        _, topic_sampler, topic_ids, venue_ids, words = self.communities[community_index]
        topics = self._topics(rng, topic_sampler, topic_ids)
        title, abstract = self._texts(rng, words, topics[0]["display_name"].split())
        published, created, updated = self._dates(rng)
        cited, counts = self._citations(rng, published.year)
        work_type, doi, location = self._location(rng, number, published, venue_ids)
        ids = {"openalex": work_id}
        if doi:
            ids["doi"] = doi
        self.stats.works += 1
        return {
            "id": work_id,
            "doi": doi,
            "title": title,
            "display_name": title,
            "publication_year": published.year,
            "publication_date": published.isoformat(),
            "ids": ids,
            "language": "en",
            "primary_location": location,
            "type": work_type,
            "authorships": self._authorships(rng, team),
            "cited_by_count": cited,
            "is_retracted": False,
            "primary_topic": topics[0],
            "topics": topics,
            "abstract_inverted_index": inverted_index(abstract),
            "counts_by_year": counts,
            "updated_date": updated,
            "created_date": created.isoformat(),
        }

    def _topics(self, rng: Random, topic_sampler: _Sampler, topic_ids: list[int]) -> list[dict]:
        """1-3 topics from the lead author's community, Zipf-ranked, with falling scores."""
        picked: list[int] = []
        for _ in range(rng.randint(1, 3)):
            topic = topic_ids[topic_sampler.draw(rng)]
            if topic not in picked:
                picked.append(topic)
        topics = []
        score = 0.9 + rng.random() * 0.0999
        for topic in picked:
            topic_id, topic_name, sub = self.topics[topic]
            subfield, field_, domain = self.subfields[sub]
            topics.append(
                {
                    "id": topic_id,
                    "display_name": topic_name,
                    "score": round(score, 4),
                    "subfield": subfield,
                    "field": field_,
                    "domain": domain,
                }
            )
            score *= 0.6 + rng.random() * 0.35
        return topics

    def _texts(self, rng: Random, words: list[str], main_topic: list[str]) -> tuple[str, list]:
        """A title and the words of a short abstract from community words and the main topic."""
        keyword = rng.choice(words)
        title = (
            f"{rng.choice(_ADJECTIVES)} {keyword} {rng.choice(_NOUNS)} for "
            f"{main_topic[0].lower()} {main_topic[1]}"
        )
        abstract = (
            f"We {rng.choice(_VERBS)} {keyword} {rng.choice(_NOUNS)} in "
            f"{main_topic[0].lower()} {rng.choice(_NOUNS)} using {rng.choice(words)} "
            f"{rng.choice(_NOUNS)}. The {rng.choice(_ADJECTIVES).lower()} approach "
            f"{rng.choice(_FINDINGS)} {rng.choice(words)} {rng.choice(_NOUNS)} across "
            f"{rng.randint(2, 40)} {rng.choice(_NOUNS)}."
        ).split()
        return title, abstract

    def _location(
        self, rng: Random, number: int, published: date, venue_ids: list[int]
    ) -> tuple[str, str | None, dict]:
        """Type, DOI and primary location: an arXiv preprint or a work in a venue."""
        arxiv_id = None
        if published.year >= ARXIV_FIRST_YEAR and rng.random() < self._arxiv_rate:
            arxiv_id = self._arxiv_id(published)
        if arxiv_id:
            self.stats.arxiv_preprints += 1
            location = {
                "is_oa": True,
                "landing_page_url": f"https://arxiv.org/abs/{arxiv_id}",
                "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}",
                "source": ARXIV_SOURCE,
                "version": "submittedVersion",
            }
            return "preprint", f"https://doi.org/10.48550/arxiv.{arxiv_id}", location
        work_type = _WORK_TYPES[self.type_sampler.draw(rng)][0]
        venue_index = rng.choice(venue_ids) if rng.random() < 0.8 else self.venue_sampler.draw(rng)
        doi = f"https://doi.org/10.5555/corpus.w{number}" if rng.random() < 0.9 else None
        location = {
            "is_oa": rng.random() < 0.4,
            "landing_page_url": doi,
            "pdf_url": None,
            "source": self.venues[venue_index],
            "version": "publishedVersion",
        }
        return work_type, doi, location

    def _authorships(self, rng: Random, team: list[int]) -> list[dict]:
        size = len(team)
        corresponding = team[-1] if size > 1 and rng.random() < 0.5 else team[0]
        authorships = []
        for index, author in enumerate(team):
            if index == 0:
                position = "first"
            elif index == size - 1:
                position = "last"
            else:
                position = "middle"
            authorships.append(self._authorship(rng, author, position, author == corresponding))
            self.stats._used[author] = 1
        self.stats.authorships += size
        return authorships


def generate_works(n_works: int, n_authors: int | None = None, seed: int = 0) -> Iterator[dict]:
    """The works of one synthetic corpus, as a generator."""
    return CorpusGenerator(n_works, n_authors=n_authors, seed=seed).works()


def default_path(base_dir: Path, n_works: int, compress: bool) -> Path:
    return Path(base_dir) / "var" / "corpus" / f"works-{n_works}.jsonl{'.gz' if compress else ''}"


def write_corpus(
    path: Path,
    n_works: int,
    *,
    n_authors: int | None = None,
    seed: int = 0,
    compress: bool = False,
) -> CorpusStats:
    """Stream a corpus to ``path`` (gzip with a fixed header when ``compress``)."""
    started = time.perf_counter()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    generator = CorpusGenerator(n_works, n_authors=n_authors, seed=seed)
    encode = json.JSONEncoder(ensure_ascii=False).encode
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as raw:
        # mtime=0 and no file name in the header: the same seed gives the same bytes.
        stream = (
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0, filename="")
            if compress
            else raw
        )
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="\n", write_through=False)
        buffer: list[str] = []
        for work in generator.works():
            buffer.append(encode(work))
            if len(buffer) >= 1000:
                text.write("\n".join(buffer) + "\n")
                buffer.clear()
        if buffer:
            text.write("\n".join(buffer) + "\n")
        text.flush()
        text.detach()
        if compress:
            stream.close()
    tmp.replace(path)
    stats = generator.stats
    stats.seconds = time.perf_counter() - started
    stats.path = str(path)
    stats.bytes_written = path.stat().st_size
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.corpus",
        description=(
            "Write a deterministic synthetic corpus of fake works in OpenAlex snapshot format "
            "(one Work per line). Ids are in reserved ranges (W8…, A8…); names are made up."
        ),
    )
    parser.add_argument("--works", type=int, required=True, help="number of works (N)")
    parser.add_argument("--authors", type=int, default=None, help="author pool (default N/4)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--out", type=Path, default=None, help="output file (default var/corpus/works-N.jsonl)"
    )
    parser.add_argument("--gzip", action="store_true", help="gzip the output")
    args = parser.parse_args(argv)
    if args.works < 1:
        parser.error("--works must be at least 1")
    if args.authors is not None and args.authors < 1:
        parser.error("--authors must be at least 1")
    compress = args.gzip or (args.out is not None and args.out.suffix == ".gz")
    base = Path(__file__).resolve().parents[1]
    path = args.out or default_path(base, args.works, compress)
    stats = write_corpus(
        path, args.works, n_authors=args.authors, seed=args.seed, compress=compress
    )
    print(stats.summary())


if __name__ == "__main__":
    main()

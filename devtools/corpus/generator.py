"""The generator of the synthetic corpus: pools of people, places and topics, then works."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import accumulate
from random import Random

from devtools.corpus.vocabulary import (
    _ADJECTIVES,
    _COUNTRIES,
    _DOMAINS,
    _FIELDS,
    _FINDINGS,
    _INSTITUTION_TYPES,
    _NOUNS,
    _SUBFIELDS,
    _SYLLABLES,
    _VERBS,
    _WORK_TYPES,
    ARXIV_FIRST_YEAR,
    ARXIV_NUMBER_START,
    ARXIV_SHARE,
    ARXIV_SOURCE,
    AUTHOR_ID_BASE,
    END_YEAR,
    FIRST_YEAR,
    INSTITUTION_ID_BASE,
    OPENALEX,
    ORCID_SHARE,
    TEAM_SIZE_WEIGHTS,
    TOPIC_ID_BASE,
    VENUE_ID_BASE,
    WORK_ID_BASE,
    YEAR_DECAY,
    inverted_index,
    synthetic_orcid,
    synthetic_ror,
)


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

"""Per-author aggregates computed from our own rows (docs/METRICS.md).

``author_metrics_refresh`` recomputes a set of authors with a fixed number of
queries, whatever their number of works; a task calls it after imports.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max, Min
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.text import slugify

from catalogue.models import (
    Author,
    AuthorInstitution,
    AuthorMetrics,
    Authorship,
    Citation,
    SourceRecord,
    Topic,
    WorkTopic,
)
from catalogue.novelty import novelty_set
from catalogue.signals import metrics_refreshed

AI_ARXIV_CATEGORIES = {"cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "cs.RO", "stat.ML"}
AI_SUBFIELDS = {"Artificial Intelligence", "Computer Vision and Pattern Recognition"}
AI_HALF_LIFE_YEARS = 5
CLOSE_COLLABORATOR_MIN_WORKS = 2
TOP_LIST_LENGTH = 10  # collaborators and topics kept on the metrics row
METRIC_FIELDS = [
    "works_count",
    "citations",
    "h_index",
    "i10_index",
    "citations_by_year",
    "topics_count",
    "close_collaborators_count",
    "primary_category",
    "ai_score",
    "novelty",
    "novelty_basis",
    "first_year",
    "last_year",
    "computed_at",
    "followers_count",
    "collaborators_top",
    "topics_top",
    "institutions_list",
    "site_citations",
    "works_dated_from",
    "works_dated_to",
]


@dataclass
class WorkFacts:
    cited_by_count: int | None
    counts_by_year: list
    year: int | None
    arxiv_category: str
    topics: set[str] = field(default_factory=set)
    fields: list[str] = field(default_factory=list)
    is_ai: bool = False


def h_index(citations: Iterable[int]) -> int:
    ranked = sorted(citations, reverse=True)
    return sum(1 for rank, count in enumerate(ranked, start=1) if count >= rank)


def i10_index(citations: Iterable[int]) -> int:
    return sum(1 for count in citations if count >= 10)


def ai_score(works: Iterable[WorkFacts], *, this_year: int) -> float | None:
    """Recency-weighted share of AI works: a work's weight halves every five years of age.

    Works with no year, or with neither a topic nor an arXiv category, tell nothing
    either way and are left out; None when no work is left.
    """
    total = ai = 0.0
    for work in works:
        if work.year is None or not (work.topics or work.arxiv_category):
            continue
        weight = 0.5 ** (max(this_year - work.year, 0) / AI_HALF_LIFE_YEARS)
        total += weight
        ai += weight if work.is_ai else 0.0
    return round(100 * ai / total, 1) if total else None


def _load_works(author_ids) -> tuple[dict[int, set[int]], dict[int, WorkFacts]]:
    by_author: dict[int, set[int]] = defaultdict(set)
    works: dict[int, WorkFacts] = {}
    rows = (
        Authorship.objects.of_visible_works()
        .filter(author_id__in=author_ids)
        .values_list(
            "author_id",
            "work_id",
            "work__cited_by_count",
            "work__counts_by_year",
            "work__publication_year",
            "work__arxiv_primary_category",
        )
    )
    for author_id, work_id, cited, by_year, year, category in rows:
        by_author[author_id].add(work_id)
        if work_id not in works:
            is_ai = category in AI_ARXIV_CATEGORIES
            works[work_id] = WorkFacts(cited, by_year or [], year, category or "", is_ai=is_ai)
    return by_author, works


def _load_topics(works: dict[int, WorkFacts]) -> dict[int, tuple[str, str]]:
    """Mark each work's topics and AI flag; return the name and key of every topic seen."""
    names: dict[int, tuple[str, str]] = {}
    rows = WorkTopic.objects.filter(work_id__in=works).values_list(
        "work_id",
        "topic_id",
        "topic__key",
        "topic__kind",
        "topic__name",
        "topic__parent__name",
        "topic__parent__parent__name",
    )
    for work_id, topic_id, key, kind, name, parent_name, grandparent_name in rows:
        facts = works[work_id]
        facts.topics.add(topic_id)
        names[topic_id] = (name, key)
        if kind == Topic.Kind.ARXIV and key.removeprefix("arxiv:") in AI_ARXIV_CATEGORIES:
            facts.is_ai = True
        if kind == Topic.Kind.TOPIC:
            facts.is_ai = facts.is_ai or parent_name in AI_SUBFIELDS
            if grandparent_name:
                facts.fields.append(grandparent_name)
    return names


@dataclass
class Coauthors:
    """Who wrote with one author: joint works and the latest year of a joint work."""

    joint: Counter = field(default_factory=Counter)
    last_year: dict[int, int] = field(default_factory=dict)

    def close(self) -> list[int]:
        """Close collaborators, most joint works first, then the most recent."""
        close = [p for p, n in self.joint.items() if n >= CLOSE_COLLABORATOR_MIN_WORKS]
        return sorted(close, key=lambda p: (-self.joint[p], -self.last_year.get(p, 0), p))


def _coauthors(by_author: dict[int, set[int]], works: dict[int, WorkFacts]) -> dict:
    all_works = {w for ids in by_author.values() for w in ids}
    people_on: dict[int, list[int]] = defaultdict(list)
    rows = (
        Authorship.objects.of_visible_authors()
        .filter(work_id__in=all_works)
        .values_list("work_id", "author_id")
    )
    for work_id, author_id in rows:
        people_on[work_id].append(author_id)
    result: dict[int, Coauthors] = {}
    for author_id, work_ids in by_author.items():
        coauthors = Coauthors()
        for work_id in work_ids:
            year = works[work_id].year or 0
            for person in people_on[work_id]:
                if person == author_id:
                    continue
                coauthors.joint[person] += 1
                if year > coauthors.last_year.get(person, 0):
                    coauthors.last_year[person] = year
        result[author_id] = coauthors
    return result


def _collaborators_top(coauthors: Coauthors, names: dict[int, str]) -> list[dict]:
    top = []
    for person in coauthors.close()[:TOP_LIST_LENGTH]:
        name = names.get(person, "")
        top.append(
            {
                "id": person,
                "name": name,
                "slug": slugify(name)[:80] or "author",
                "joint_works": coauthors.joint[person],
                "last_year": coauthors.last_year.get(person) or None,
            }
        )
    return top


def _topics_top(facts: list[WorkFacts], names: dict[int, tuple[str, str]]) -> list[dict]:
    counts = Counter(t for w in facts for t in w.topics)
    ranked = sorted(counts, key=lambda t: (-counts[t], names[t][0], t))[:TOP_LIST_LENGTH]
    return [{"id": t, "name": names[t][0], "key": names[t][1], "works": counts[t]} for t in ranked]


@dataclass
class AuthorFacts:
    """What the metrics need from the author row itself: followers and institutions."""

    followers: int = 0
    institutions: list[dict] = field(default_factory=list)


_AFFILIATION_FIELDS = (
    "author_id",
    "institution_id",
    "institution__name",
    "institution__ror",
    "years",
    "source",
    "in_author_record",
)


def _load_author_facts(author_ids) -> dict[int, AuthorFacts]:
    facts = {a: AuthorFacts() for a in author_ids}
    # Follows live in the people layer; the reverse relation counts them without importing it.
    rows = (
        Author.objects.filter(id__in=author_ids)
        .annotate(followers=Count("follows", distinct=True))
        .values_list(
            "id",
            "followers",
            "last_known_institution_id",
            "last_known_institution__name",
            "last_known_institution__ror",
        )
    )
    current, history = {}, defaultdict(dict)
    for author_id, followers, inst_id, name, ror in rows:
        facts[author_id].followers = followers
        current[author_id] = inst_id
        if inst_id:
            history[author_id][inst_id] = _institution(inst_id, name, ror, [])
    affiliations = AuthorInstitution.objects.filter(author_id__in=author_ids)
    for author_id, inst_id, name, ror, years, source, in_record in affiliations.values_list(
        *_AFFILIATION_FIELDS
    ):
        entry = history[author_id][inst_id] = _institution(inst_id, name, ror, years)
        entry.update(source=source, record=in_record)
    _add_bylines(author_ids, history)
    for author_id, entries in history.items():
        for inst_id, entry in entries.items():
            entry["current"] = inst_id == current.get(author_id)
        facts[author_id].institutions = sorted(entries.values(), key=_history_order)
    return facts


def _add_bylines(author_ids, history: dict[int, dict[int, dict]]) -> None:
    """Count the works held here whose byline places each author at each institution."""
    rows = (
        Authorship.institutions.through.objects.filter(
            authorship__author_id__in=author_ids, authorship__work__merged_into__isnull=True
        )
        .values_list(
            "authorship__author_id",
            "institution_id",
            "institution__name",
            "institution__ror",
            "authorship__work__publication_year",
        )
        .order_by()
    )
    for author_id, inst_id, name, ror, year in rows:
        entry = history[author_id].setdefault(inst_id, _institution(inst_id, name, ror, []))
        entry["byline_works"] = entry.get("byline_works", 0) + 1
        if year:
            entry["byline_first"] = min(year, entry.get("byline_first", year))
            entry["byline_last"] = max(year, entry.get("byline_last", year))


def _history_order(entry: dict) -> tuple:
    """The current institution first, then the latest year known, then by name."""
    latest = max(entry.get("last", 0), entry.get("byline_last", 0))
    return (not entry.get("current"), -latest, entry["name"], entry["id"])


def _years(years: object) -> list[int]:
    return [y for y in years or [] if isinstance(y, int) and not isinstance(y, bool)]


def _institution(inst_id: int, name: str, ror: str | None, years: object) -> dict:
    """An entry of ``institutions_list``: the first and last year the record gives, if any.

    ``record``: the source's author record lists it; ``source``: who added the row
    (None for an institution only bylines name); ``byline_works`` and its years: the
    works held here whose byline places the author there.
    """
    known = _years(years)
    entry = {"id": inst_id, "name": name, "ror": ror or "", "record": False, "source": None}
    if known:
        entry.update(first=min(known), last=max(known))
    return entry


def _names(coauthors: dict[int, Coauthors]) -> dict[int, str]:
    wanted = {p for c in coauthors.values() for p in c.close()[:TOP_LIST_LENGTH]}
    return dict(Author.objects.filter(id__in=wanted).values_list("id", "display_name"))


def _primary_category(works: list[WorkFacts]) -> str:
    """The arXiv category of most works, else the field of most works.

    Ties go to the field more of the works' topics fall in, then to the name
    that sorts first: the answer never depends on the order rows are read in.
    """
    arxiv = Counter(w.arxiv_category for w in works if w.arxiv_category)
    if arxiv:
        return min(arxiv, key=lambda category: (-arxiv[category], category))
    by_works = Counter(f for w in works for f in set(w.fields))
    by_topics = Counter(f for w in works for f in w.fields)
    if not by_works:
        return ""
    return min(by_works, key=lambda name: (-by_works[name], -by_topics[name], name))


def _citations_by_year(works: list[WorkFacts]) -> dict[str, int]:
    totals: Counter = Counter()
    for work in works:
        for entry in work.counts_by_year:
            if isinstance(entry, dict) and entry.get("year") is not None:
                totals[str(entry["year"])] += int(entry.get("cited_by_count") or 0)
    return dict(sorted(totals.items()))


@dataclass
class Batch:
    """Everything loaded once for a set of authors."""

    works: dict[int, WorkFacts]
    topic_names: dict[int, tuple[str, str]]
    coauthors: dict[int, Coauthors]
    coauthor_names: dict[int, str]
    authors: dict[int, AuthorFacts]
    now: datetime
    site_citations: dict[int, int] = field(default_factory=dict)
    dated: dict[int, tuple] = field(default_factory=dict)


def _metrics_for(author_id: int, work_ids: set[int], batch: Batch) -> AuthorMetrics:
    facts = [batch.works[w] for w in work_ids]
    known = [w.cited_by_count for w in facts if w.cited_by_count is not None]
    years = [w.year for w in facts if w.year]
    coauthors = batch.coauthors.get(author_id, Coauthors())
    author = batch.authors[author_id]
    now = batch.now
    return AuthorMetrics(
        author_id=author_id,
        works_count=len(facts),
        citations=sum(known) if known else None,
        h_index=h_index(known),
        i10_index=i10_index(known),
        citations_by_year=_citations_by_year(facts),
        topics_count=len({t for w in facts for t in w.topics}),
        close_collaborators_count=len(coauthors.close()),
        followers_count=author.followers,
        collaborators_top=_collaborators_top(coauthors, batch.coauthor_names),
        topics_top=_topics_top(facts, batch.topic_names),
        institutions_list=author.institutions,
        primary_category=_primary_category(facts)[:300],
        ai_score=ai_score(facts, this_year=now.year),
        first_year=min(years) if years else None,
        last_year=max(years) if years else None,
        computed_at=now,
        site_citations=batch.site_citations.get(author_id, 0),
        works_dated_from=batch.dated.get(author_id, (None, None))[0],
        works_dated_to=batch.dated.get(author_id, (None, None))[1],
    )


def works_dated(author_ids: list[int]) -> dict[int, tuple]:
    """The oldest and newest date the sources gave each author's works (one query)."""
    dated = Coalesce("source_updated_at", "fetched_at")
    rows = (
        SourceRecord.objects.filter(
            work__authorships__author_id__in=author_ids, work__merged_into__isnull=True
        )
        .values_list("work__authorships__author_id")
        .annotate(first=Min(dated), last=Max(dated))
        .order_by()
    )
    return {author_id: (first, last) for author_id, first, last in rows}


def site_citations(author_ids: list[int]) -> dict[int, int]:
    """Citations of each author's works by works we hold (one query for all the authors)."""
    rows = (
        Citation.objects.filter(
            cited__authorships__author_id__in=author_ids, citing__merged_into__isnull=True
        )
        .values_list("cited__authorships__author_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return dict(rows)


def author_metrics_refresh(*, author_ids: Iterable[int]) -> int:
    """Recompute the aggregates of these authors; return how many rows were written."""
    ids = sorted(set(author_ids))
    if not ids:
        return 0
    by_author, works = _load_works(ids)
    topic_names = _load_topics(works)
    coauthors = _coauthors(by_author, works)
    batch = Batch(
        works=works,
        topic_names=topic_names,
        coauthors=coauthors,
        coauthor_names=_names(coauthors),
        authors=_load_author_facts(ids),
        now=timezone.now(),
        site_citations=site_citations(ids),
        dated=works_dated(ids),
    )
    rows = [_metrics_for(a, by_author.get(a, set()), batch) for a in ids]
    novelty_set(rows)
    AuthorMetrics.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["author"], update_fields=METRIC_FIELDS
    )
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=list(ids))
    return len(rows)


def author_followers_refresh(*, author_ids: Iterable[int]) -> int:
    """Set the follower counts of these authors' metrics rows; return how many were updated.

    Cheaper than a full refresh, for when only follows changed.
    """
    counts = dict(
        Author.objects.filter(id__in=set(author_ids))
        .annotate(followers=Count("follows", distinct=True))
        .values_list("id", "followers")
    )
    rows = list(AuthorMetrics.objects.filter(author_id__in=counts))
    for row in rows:
        row.followers_count = counts[row.author_id]
    updated = AuthorMetrics.objects.bulk_update(rows, ["followers_count"])
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=list(counts))
    return updated

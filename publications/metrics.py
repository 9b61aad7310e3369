"""Per-author aggregates computed from our own rows (DESIGN: Metrics).

``author_metrics_refresh`` recomputes a set of authors with a fixed number of
queries, whatever their number of works; a task calls it after imports.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils import timezone

from publications.models import AuthorMetrics, Authorship, WorkTopic

AI_ARXIV_CATEGORIES = {"cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "cs.RO", "stat.ML"}
AI_SUBFIELDS = {"Artificial Intelligence", "Computer Vision and Pattern Recognition"}
AI_HALF_LIFE_YEARS = 5
CLOSE_COLLABORATOR_MIN_WORKS = 2
METRIC_FIELDS = [
    "works_count", "citations", "h_index", "i10_index", "citations_by_year", "topics_count",
    "close_collaborators_count", "primary_category", "ai_score", "first_year", "last_year",
    "computed_at",
]  # fmt: skip


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
    """Recency-weighted share of AI works: a work's weight halves every five years of age."""
    total = ai = 0.0
    for work in works:
        if work.year is None:
            continue
        weight = 0.5 ** (max(this_year - work.year, 0) / AI_HALF_LIFE_YEARS)
        total += weight
        ai += weight if work.is_ai else 0.0
    return round(100 * ai / total, 1) if total else None


def _load_works(author_ids) -> tuple[dict[int, set[int]], dict[int, WorkFacts]]:
    by_author: dict[int, set[int]] = defaultdict(set)
    works: dict[int, WorkFacts] = {}
    rows = Authorship.objects.filter(
        author_id__in=author_ids, work__merged_into__isnull=True
    ).values_list(
        "author_id", "work_id", "work__cited_by_count", "work__counts_by_year",
        "work__publication_year", "work__arxiv_primary_category",
    )  # fmt: skip
    for author_id, work_id, cited, by_year, year, category in rows:
        by_author[author_id].add(work_id)
        if work_id not in works:
            is_ai = category in AI_ARXIV_CATEGORIES
            works[work_id] = WorkFacts(cited, by_year or [], year, category or "", is_ai=is_ai)
    return by_author, works


def _load_topics(works: dict[int, WorkFacts]) -> None:
    rows = WorkTopic.objects.filter(work_id__in=works).values_list(
        "work_id", "topic_id", "topic__key", "topic__kind", "topic__parent__name",
        "topic__parent__parent__name",
    )  # fmt: skip
    for work_id, topic_id, key, kind, parent_name, grandparent_name in rows:
        facts = works[work_id]
        facts.topics.add(topic_id)
        if kind == "arxiv" and key.removeprefix("arxiv:") in AI_ARXIV_CATEGORIES:
            facts.is_ai = True
        if kind == "topic":
            facts.is_ai = facts.is_ai or parent_name in AI_SUBFIELDS
            if grandparent_name:
                facts.fields.append(grandparent_name)


def _coauthor_counts(by_author: dict[int, set[int]]) -> dict[int, Counter]:
    all_works = {w for ids in by_author.values() for w in ids}
    people_on: dict[int, list[int]] = defaultdict(list)
    rows = Authorship.objects.filter(work_id__in=all_works).values_list("work_id", "author_id")
    for work_id, author_id in rows:
        people_on[work_id].append(author_id)
    counts = {}
    for author_id, work_ids in by_author.items():
        counter = Counter(p for w in work_ids for p in people_on[w] if p != author_id)
        counts[author_id] = counter
    return counts


def _primary_category(works: list[WorkFacts]) -> str:
    arxiv = Counter(w.arxiv_category for w in works if w.arxiv_category)
    if arxiv:
        return arxiv.most_common(1)[0][0]
    fields = Counter(f for w in works for f in set(w.fields))
    return fields.most_common(1)[0][0] if fields else ""


def _citations_by_year(works: list[WorkFacts]) -> dict[str, int]:
    totals: Counter = Counter()
    for work in works:
        for entry in work.counts_by_year:
            if isinstance(entry, dict) and entry.get("year") is not None:
                totals[str(entry["year"])] += int(entry.get("cited_by_count") or 0)
    return dict(sorted(totals.items()))


def _metrics_for(author_id, work_ids, works, coauthors, now) -> AuthorMetrics:
    facts = [works[w] for w in work_ids]
    known = [w.cited_by_count for w in facts if w.cited_by_count is not None]
    years = [w.year for w in facts if w.year]
    close = sum(1 for n in coauthors.values() if n >= CLOSE_COLLABORATOR_MIN_WORKS)
    return AuthorMetrics(
        author_id=author_id,
        works_count=len(facts),
        citations=sum(known) if known else None,
        h_index=h_index(known),
        i10_index=i10_index(known),
        citations_by_year=_citations_by_year(facts),
        topics_count=len({t for w in facts for t in w.topics}),
        close_collaborators_count=close,
        primary_category=_primary_category(facts)[:300],
        ai_score=ai_score(facts, this_year=now.year),
        first_year=min(years) if years else None,
        last_year=max(years) if years else None,
        computed_at=now,
    )


def author_metrics_refresh(*, author_ids: Iterable[int]) -> int:
    """Recompute the aggregates of these authors; return how many rows were written."""
    ids = sorted(set(author_ids))
    if not ids:
        return 0
    by_author, works = _load_works(ids)
    _load_topics(works)
    coauthors = _coauthor_counts(by_author)
    now = timezone.now()
    rows = [
        _metrics_for(a, by_author.get(a, set()), works, coauthors.get(a, Counter()), now)
        for a in ids
    ]
    AuthorMetrics.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["author"], update_fields=METRIC_FIELDS
    )
    return len(rows)

"""Catch-all records: a record whose works look like the works of two people or more.

A source (or an early import) may put the works of namesakes under one record.
``split_records`` reads the works of each record with enough of them as the
identity engine's bylines, with the record's own id taken off, and lets the
engine group them (``identity.communities``): sure groups first, as for the
bylines of unknown authors, then groups grow while their pooled evidence reaches
the candidate threshold. What is left are communities of works that share
nothing worth even a merge candidate (co-authors, places, subjects, years,
weighed against what the name says). Two of them or more, each of
at least two works, become one open ``SplitProposal``: each group with a
summary (years, main co-authors, main topics), the engine's reasons in words,
and a score (how surely the groups are different people), for staff or the
owner to split the record or keep it whole. Works that share co-authors stay
in one community, so a record whose works all share co-authors is never
proposed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from django.db.models import Count, Q

from catalogue.models import Author, SplitProposal, Topic
from identity import Byline, Explainer
from identity.communities import communities as community_ids
from identity.evidence import weigh
from ingestion.people.matching import THRESHOLDS, evidence_text
from ingestion.people.records import record_bylines

MIN_WORKS = 4  # records with fewer works are not checked
MIN_GROUP = 2  # works a group needs to stand for a person
SPLIT_WORKS = 100  # the most recent works of a record that the check reads
RECORDS_CHECKED = 50  # records of a block checked at once, those with most works first
SHOWN = 3  # co-authors and topics named in a group's summary


@dataclass
class Split:
    """The communities of one record's works that look like different people."""

    groups: list[list[Byline]]  # largest first, each of at least MIN_GROUP works
    score: float  # 1 - the best score of two groups being one person
    reasons: list[str]  # the engine's reasons, between the two largest groups


def split_block(key: str) -> int:
    """Check the records of a name block; return the proposals written."""
    return _check(Author.objects.visible().filter(name_block=key))


def split_records(author_ids) -> int:
    """Check the records ``author_ids``; return the proposals written."""
    return _check(Author.objects.visible().filter(pk__in=list(author_ids)))


def _check(records) -> int:
    held = records.annotate(held=Count("authorships")).filter(held__gte=MIN_WORKS)
    authors = list(held.order_by("-held", "pk")[:RECORDS_CHECKED])
    if not authors:
        return 0
    by_author: dict[int, list[Byline]] = {a.pk: [] for a in authors}
    for byline in record_bylines(authors, SPLIT_WORKS):
        if not byline.id.startswith("rec:"):
            by_author[int(byline.source_author_id[1:])].append(byline)
    written = 0
    for author in authors:
        written += propose(author, communities(by_author[author.pk]))
    return written


def communities(bylines: list[Byline]) -> Split | None:
    """Group one record's work bylines into people; None unless two groups stand apart."""
    once = {b.work_id: replace(b, source_author_id="", orcid="") for b in bylines}
    bylines = list(once.values())
    if len(bylines) < MIN_WORKS:
        return None
    clusters = community_ids(bylines, THRESHOLDS)
    kept = sorted((ids for ids in clusters if len(ids) >= MIN_GROUP), key=len, reverse=True)
    if len(kept) < 2:
        return None
    explainer = Explainer(bylines)
    pooled = [explainer.pooled(ids) for ids in kept]
    best = 0.0
    for n, left in enumerate(pooled):
        for right in pooled[n + 1 :]:
            found = weigh(left, right, explainer.freq, explainer.crowd)
            best = max(best, found.score)
    if best >= THRESHOLDS.candidate:
        return None
    reasons = weigh(pooled[0], pooled[1], explainer.freq, explainer.crowd, True).reasons
    by_id = {b.id: b for b in bylines}
    groups = [[by_id[i] for i in ids] for ids in kept]
    return Split(groups, round(1.0 - best, 3), reasons)


def propose(author: Author, split: Split | None) -> int:
    """Write ``split`` as the record's open proposal, superseding an older open one;
    a split staff kept whole is not proposed again. Returns 1 if a proposal was written."""
    earlier = list(
        SplitProposal.objects.filter(author=author).filter(
            Q(status=SplitProposal.Status.OPEN) | Q(status=SplitProposal.Status.KEPT_WHOLE)
        )
    )
    current = [p for p in earlier if p.status == SplitProposal.Status.OPEN]
    if split is None:
        # The record no longer looks like several people (works moved, new evidence).
        for proposal in current:
            proposal.status = SplitProposal.Status.SUPERSEDED
            proposal.save(update_fields=["status"])
        return 0
    groups = [_work_ids(group) for group in split.groups]
    if any(_same_split(p.groups, groups, exact=p in current) for p in earlier):
        return 0
    for proposal in current:
        proposal.status = SplitProposal.Status.SUPERSEDED
        proposal.save(update_fields=["status"])
    names = _topic_names(split.groups)
    SplitProposal.objects.create(
        author=author,
        groups=[
            {"work_ids": ids, "summary": summary(group, names)}
            for ids, group in zip(groups, split.groups, strict=True)
        ],
        reason=_reason(len(groups), split.reasons),
        score=split.score,
    )
    return 1


def _work_ids(group: list[Byline]) -> list[int]:
    return sorted(int(b.work_id[1:]) for b in group)


def _same_split(before: list[dict], groups: list[list[int]], exact: bool) -> bool:
    """Whether ``groups`` is the split ``before`` proposed: the same groups (``exact``), or
    the same people grown by new works (each group holds works of a distinct earlier one)."""
    earlier = [set(g.get("work_ids", ())) for g in before]
    if exact:
        return sorted(map(sorted, earlier)) == sorted(groups)
    matched = []
    for group in groups:
        hits = [n for n, old in enumerate(earlier) if old & set(group)]
        if len(hits) != 1:
            return False
        matched.append(hits[0])
    return len(set(matched)) == len(matched)


def _reason(count: int, reasons: list[str]) -> str:
    return evidence_text(f"{count} groups of works with no evidence of one person", reasons)


def summary(group: list[Byline], topic_names: dict[str, str]) -> str:
    """Years, main co-authors and main topics of one group of works, in a line."""
    years = sorted(b.year for b in group if b.year)
    parts = [f"{len(group)} works"]
    if years:
        parts.append(str(years[0]) if years[0] == years[-1] else f"{years[0]}–{years[-1]}")
    coauthors = Counter(name for b in group for name in set(b.coauthors))
    if coauthors:
        parts.append("with " + ", ".join(name for name, _ in coauthors.most_common(SHOWN)))
    topics = Counter(t for b in group for t in set(b.topics))
    if topics:
        shown = [topic_names.get(key, key) for key, _ in topics.most_common(SHOWN)]
        parts.append("on " + ", ".join(shown))
    return "; ".join(parts)[:500]


def _topic_names(groups: list[list[Byline]]) -> dict[str, str]:
    keys = {t for group in groups for b in group for t in b.topics}
    if not keys:
        return {}
    return dict(Topic.objects.filter(key__in=keys).values_list("key", "name"))

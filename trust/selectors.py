"""Reading the evidence a trust score is computed from, and the stored scores.

``signals_for_authors`` gathers the ``Signals`` of many authors with the same
seven queries whatever their number (and whatever their number of works);
``author_signals`` is the same for one author. ``snapshot`` reads what the
researcher page shows in at most two queries.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Exists, Max, Min, OuterRef, Q, Subquery, Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from catalogue.identifiers import openalex_url
from catalogue.models import Author, AuthorInstitution, Authorship, Source, SourceRecord
from profiles.models import Claim, Follow, Report
from trust import scoring, weights
from trust.models import TrustScore, TrustScoreHistory

LINKS_PER_ITEM = 3  # named examples an item shows (retracted works, collaborators)
HISTORY_POINTS = 30  # history rows the sparkline draws


@functools.cache
def _url_pattern(name: str) -> str:
    """The address of ``name`` with {pk} and {slug} slots, so batches need not reverse each."""
    return reverse(name, kwargs={"pk": 4321, "slug": "slot"}).replace("4321-slot", "{pk}-{slug}")


def author_url(pk: int, name: str) -> str:
    """As Author.get_absolute_url, without loading the author."""
    return _url_pattern("profiles:researcher").format(pk=pk, slug=slugify(name)[:80] or "author")


def work_url(pk: int, title: str) -> str:
    """As Work.get_absolute_url, without loading the work."""
    return _url_pattern("publications:work").format(pk=pk, slug=slugify(title)[:80] or "work")


@dataclass
class _Facts:
    """What the queries found about one author, before it becomes Signals."""

    row: dict
    works: dict = field(default_factory=dict)
    followers: int = 0
    claims: list[tuple] = field(default_factory=list)
    retracted: list[scoring.Link] = field(default_factory=list)
    reports: list[scoring.Link] = field(default_factory=list)
    report_count: int = 0
    collaborators: dict[int, str] = field(default_factory=dict)


def _authors(ids: list[int]) -> dict[int, _Facts]:
    first_affiliation = (
        AuthorInstitution.objects.filter(author_id=OuterRef("pk"))
        .order_by("-id")
        .values("institution__name")[:1]
    )
    rows = (
        Author.objects.visible()
        .filter(pk__in=ids)
        .annotate(
            affiliated=Subquery(first_affiliation),
            orcid_claimed=Exists(
                Claim.objects.filter(
                    author_id=OuterRef("pk"),
                    status=Claim.Status.APPROVED,
                    verified_orcid=OuterRef("orcid"),
                )
            ),
        )
        .values(
            "id",
            "display_name",
            "openalex_id",
            "orcid",
            "last_known_institution__name",
            "affiliated",
            "orcid_claimed",
            "source_works_count",
            "counts_source",
            "counts_as_of",
        )
    )
    return {row["id"]: _Facts(row) for row in rows}


def _recorded_by(source: str) -> Exists:
    return Exists(SourceRecord.objects.filter(work_id=OuterRef("work_id"), source=source))


def _works(ids: list[int], this_year: int) -> Iterable[dict]:
    # Listed by both means a record from each source was imported for the work: an
    # arXiv id alone may come from OpenAlex (its DataCite DOI), which proves nothing.
    both_sources = _recorded_by(Source.OPENALEX) & _recorded_by(Source.ARXIV)
    return (
        Authorship.objects.of_visible_works()
        .filter(author_id__in=ids)
        .values("author_id")
        .annotate(
            works=Count("work_id"),
            venues=Count("work__venue_id", distinct=True),
            citations=Sum("work__cited_by_count"),
            first_year=Min("work__publication_year"),
            last_year=Max("work__publication_year"),
            recent=Count(
                "work_id",
                filter=Q(work__publication_year__gt=this_year - weights.RECENT_YEARS)
                & Q(work__publication_year__lte=this_year),
            ),
            retracted=Count("work_id", filter=Q(work__is_retracted=True)),
            cross_source=Count("work_id", filter=both_sources),
        )
        .order_by()
    )


def _retracted(ids: list[int]) -> Iterable[tuple]:
    return (
        Authorship.objects.of_visible_works()
        .filter(author_id__in=ids, work__is_retracted=True)
        .order_by("author_id", "-work__publication_year", "work_id")
        .values_list("author_id", "work_id", "work__title")
    )


def _followers(ids: list[int]) -> Iterable[tuple]:
    return (
        Follow.objects.filter(author_id__in=ids)
        .values("author_id")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("author_id", "n")
    )


def _claims(ids: list[int]) -> Iterable[tuple]:
    return (
        Claim.objects.active()
        .filter(author_id__in=ids)
        .order_by()
        .values_list("author_id", "status", "method", "reviewer_id")
    )


def _reports(ids: list[int]) -> Iterable[tuple]:
    return (
        Report.objects.filter(
            author_id__in=ids,
            kind=Report.Kind.MISATTRIBUTION,
            status=Report.Status.UPHELD,
        )
        .order_by("author_id", "-handled_at", "-id")
        .values_list("author_id", "work_id", "work__title")
    )


def _claimed_collaborators(ids: list[int]) -> Iterable[tuple]:
    """(author, co-author who claimed their record, the co-author's name), once per pair."""
    claimed = Claim.objects.filter(status=Claim.Status.APPROVED).order_by().values("author_id")
    return (
        Authorship.objects.of_visible_works()
        .filter(author_id__in=Subquery(claimed), work__authorships__author_id__in=ids)
        .order_by()
        .values_list("work__authorships__author_id", "author_id", "author__display_name")
        .distinct()
    )


def signals_for_authors(
    author_ids: Iterable[int], *, now: datetime | None = None
) -> dict[int, scoring.Signals]:
    """The Signals of each visible author among ``author_ids``, in seven queries."""
    ids = sorted(set(author_ids))
    if not ids:
        return {}
    this_year = (now or timezone.now()).year
    facts = _authors(ids)
    ids = list(facts)
    for row in _works(ids, this_year):
        facts[row["author_id"]].works = row
    for author_id, work_id, title in _retracted(ids):
        links = facts[author_id].retracted
        if len(links) < LINKS_PER_ITEM:
            links.append(scoring.Link(title or f"Work {work_id}", work_url(work_id, title)))
    for author_id, count in _followers(ids):
        facts[author_id].followers = count
    for author_id, *claim in _claims(ids):
        facts[author_id].claims.append(tuple(claim))
    for author_id, work_id, title in _reports(ids):
        fact = facts[author_id]
        fact.report_count += 1
        if len(fact.reports) < LINKS_PER_ITEM and work_id:
            fact.reports.append(scoring.Link(title or f"Work {work_id}", work_url(work_id, title)))
    for author_id, other_id, name in _claimed_collaborators(ids):
        if author_id != other_id:
            facts[author_id].collaborators[other_id] = name
    return {pk: _signals(pk, fact, this_year) for pk, fact in facts.items()}


def _claim_fields(claims: list[tuple]) -> dict:
    approved = next((c for c in claims if c[0] == Claim.Status.APPROVED), None)
    disputes = sum(1 for c in claims if c[0] == Claim.Status.DISPUTED)
    if approved is not None:
        _, method, reviewer_id = approved
        status = Claim.Status.APPROVED
    else:
        method, reviewer_id = "", None
        status = Claim.Status.DISPUTED if disputes else (Claim.Status.PENDING if claims else "")
    return {
        "claim_status": status,
        "claim_method": method,
        "claim_reviewed": reviewer_id is not None,
        "disputes": disputes,
    }


def _signals(pk: int, fact: _Facts, this_year: int) -> scoring.Signals:
    row, works = fact.row, fact.works
    count = works.get("works", 0)
    collaborators = sorted(fact.collaborators.items(), key=lambda item: (item[1], item[0]))
    return scoring.Signals(
        openalex_id=row["openalex_id"] or "",
        openalex_url=openalex_url(row["openalex_id"] or ""),
        orcid=row["orcid"] or "",
        claim_orcid_matches=bool(row["orcid"] and row["orcid_claimed"]),
        cross_source_works=works.get("cross_source", 0),
        affiliation=row["last_known_institution__name"] or row["affiliated"] or "",
        works=count,
        works_url=author_url(pk, row["display_name"]) + "#works" if count else "",
        venues=works.get("venues", 0),
        citations=works.get("citations"),
        **_source_counts(row),
        followers=fact.followers,
        claimed_collaborators=len(collaborators),
        collaborator_links=tuple(
            scoring.Link(name, author_url(other, name))
            for other, name in collaborators[:LINKS_PER_ITEM]
        ),
        first_year=works.get("first_year"),
        last_year=works.get("last_year"),
        recent_works=works.get("recent", 0),
        this_year=this_year,
        retracted=works.get("retracted", 0),
        retracted_links=tuple(fact.retracted),
        misattributions=fact.report_count,
        misattribution_links=tuple(fact.reports),
        **_claim_fields(fact.claims),
    )


def _source_counts(row: dict) -> dict:
    """The source's own count of the record's works, named and dated."""
    source = row["counts_source"]
    as_of = row["counts_as_of"]
    return {
        "source_works": row["source_works_count"],
        "source_name": Source(source).label if source in Source.values else "",
        "source_as_of": as_of.date().isoformat() if as_of else "",
    }


def author_signals(author_id: int, *, now: datetime | None = None) -> scoring.Signals | None:
    """The Signals of one author (the same seven queries), or None when it does not exist."""
    return signals_for_authors([author_id], now=now).get(author_id)


# What pages and the API read ---------------------------------------------------------


@dataclass
class Snapshot:
    """A stored score with its recent history, oldest first."""

    score: TrustScore | None
    history: list[tuple[int, datetime]]


def stored_score(author: Author) -> TrustScore | None:
    """The author's TrustScore; no query when the author was loaded with select_related."""
    if Author.trust.is_cached(author):
        try:
            return author.trust
        except TrustScore.DoesNotExist:
            return None
    return TrustScore.objects.filter(author_id=author.pk).first()


def history(author_id: int, *, limit: int = HISTORY_POINTS) -> list[tuple[int, datetime]]:
    rows = (
        TrustScoreHistory.objects.filter(author_id=author_id)
        .order_by("-computed_at", "-id")
        .values_list("score", "computed_at")[:limit]
    )
    return list(reversed(rows))


def snapshot(author: Author) -> Snapshot:
    """What the researcher page shows, in at most two queries (none for history if unscored)."""
    stored = stored_score(author)
    return Snapshot(stored, history(author.pk) if stored is not None else [])

"""Works that share a title: matched, held apart, or raised for staff as merge candidates."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator

from django.db import connection, models
from django.db.models import Q

from catalogue.models import LinkConstraint, MergeCandidate, Work
from ingestion.ingest.rows import on_postgresql
from ingestion.records import WorkRecord


def _title_key(title: str) -> int:
    """A signed 64-bit key for ``title`` (PostgreSQL's one-key advisory locks)."""
    digest = hashlib.blake2b(title.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def hold_titles(titles: set[str]) -> None:
    """Hold ``titles`` until the batch's transaction ends (PostgreSQL).

    A title is matched only against committed works, so two writers (the parts of
    a run, or two runs) creating works of one title at once would each miss the
    other's and keep two works where one writer merges them. The second writer
    waits here until the first commits, then sees its work. Keys are taken in
    order, so writers never wait on each other in a circle for them; a deadlock
    with other locks is written again whole (``importing.pipeline.write_batch``).
    """
    if not on_postgresql():
        return
    keys = sorted({_title_key(title) for title in titles})
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(key)) FROM unnest(%s::bigint[]) AS key", [keys]
        )


ARXIV_REGISTRANT = "10.48550/"  # the DOI prefix of every arXiv DOI


def conflicting_ids(work: Work, record: WorkRecord) -> bool:
    """Two different DOIs (or OpenAlex ids) mean two different works, whatever the title.

    An arXiv DOI and another are not a conflict: a preprint and its published
    version have one each (and, at OpenAlex, often a record each).
    """
    if record.doi and work.doi and record.doi != work.doi:
        return not (
            record.doi.startswith(ARXIV_REGISTRANT) or work.doi.startswith(ARXIV_REGISTRANT)
        )
    return bool(record.openalex_id and work.openalex_id and record.openalex_id != work.openalex_id)


def same_work(existing: Work, fresh: Work) -> bool:
    years_close = (
        existing.publication_year is not None
        and fresh.publication_year is not None
        and abs(existing.publication_year - fresh.publication_year) <= 1
    )
    same_first = bool(fresh.first_author_surname) and (
        existing.first_author_surname == fresh.first_author_surname
    )
    return years_close and same_first


def title_reason(existing: Work, fresh: Work) -> str:
    parts = ["Same title"]
    if existing.publication_year != fresh.publication_year:
        parts.append(f"years {existing.publication_year} and {fresh.publication_year}")
    if existing.first_author_surname != fresh.first_author_surname:
        parts.append("different first authors")
    return ", ".join(parts)


def candidate_pair(candidate: MergeCandidate) -> tuple[str, frozenset]:
    if candidate.kind == MergeCandidate.Kind.WORK:
        return ("work", frozenset((candidate.work_a_id, candidate.work_b_id)))
    return ("author", frozenset((candidate.author_a_id, candidate.author_b_id)))


def raised_pairs(candidates: list[MergeCandidate]) -> set[tuple[str, frozenset]]:
    """The candidate pairs already raised, in either order and whatever their decision."""
    if not candidates:
        return set()
    ids = {i for c in candidates for i in candidate_pair(c)[1]}
    rows = MergeCandidate.objects.filter(
        Q(work_a_id__in=ids, work_b_id__in=ids) | Q(author_a_id__in=ids, author_b_id__in=ids)
    ).values_list("kind", "work_a_id", "work_b_id", "author_a_id", "author_b_id")
    pairs = set()
    for kind, work_a, work_b, author_a, author_b in rows:
        pair = (work_a, work_b) if kind == MergeCandidate.Kind.WORK else (author_a, author_b)
        pairs.add((kind, frozenset(pair)))
    return pairs


def kept_apart_pairs(candidates: list[MergeCandidate]) -> set[tuple[str, frozenset]]:
    """The candidate pairs staff already kept apart, in one query for the whole batch."""
    if not candidates:
        return set()
    ids = {i for c in candidates for i in candidate_pair(c)[1]}
    rows = LinkConstraint.objects.filter(kind=LinkConstraint.Kind.CANNOT_LINK).filter(
        Q(work_id__in=ids, other_work_id__in=ids) | Q(author_id__in=ids, other_author_id__in=ids)
    )
    pairs = set()
    for work, other_work, author, other_author in rows.values_list(
        "work_id", "other_work_id", "author_id", "other_author_id"
    ):
        if other_work:
            pairs.add(("work", frozenset((work, other_work))))
        if other_author:
            pairs.add(("author", frozenset((author, other_author))))
    return pairs


def raise_title_candidates_between_parts(run) -> int:
    """Raise the title matches two parts of ``run`` could not see in each other's open batches.

    A work is matched by title only against works already committed, so two works
    with the same title written at the same moment by two processes miss each
    other. Afterwards every such pair among the run's new works that is not told
    apart by its ids becomes a MergeCandidate, as it would have in one process
    (where a pair with the same year and first author would have been merged:
    here staff decide). Returns how many candidates were raised.
    """
    works = Work.objects.filter(
        merged_into__isnull=True,
        source_records__import_run=run,
        created_at__gte=run.started_at or run.created_at,
    ).exclude(normalized_title="")
    # Two works with OpenAlex ids of their own are told apart by them, unless one is
    # known by an arXiv DOI (a preprint's record): every pair that can match has such
    # an "open" work in it.
    open_work = Q(openalex_id__isnull=True) | Q(doi__startswith=ARXIV_REGISTRANT)
    repeated = (
        works.values("normalized_title")
        .annotate(
            n=models.Count("id", distinct=True),
            open=models.Count("id", distinct=True, filter=open_work),
        )
        .filter(n__gt=1, open__gt=0)
        .values("normalized_title")
    )
    groups = defaultdict(list)
    fields = ("normalized_title", "doi", "openalex_id", "publication_year", "first_author_surname")
    for work in works.filter(normalized_title__in=repeated).only(*fields).distinct().order_by("pk"):
        groups[work.normalized_title].append(work)
    candidates = [
        MergeCandidate(kind="work", work_a=a, work_b=b, reason=title_reason(a, b), score=0.7)
        for group in groups.values()
        for a, b in _pairs_with_an_open_work(group)
        if not conflicting_ids(a, b)
    ]
    if not candidates:
        return 0
    ids = {w.pk for group in groups.values() for w in group}
    raised = set(
        MergeCandidate.objects.filter(work_a__in=ids, work_b__in=ids).values_list(
            "work_a_id", "work_b_id"
        )
    )
    apart = kept_apart_pairs(candidates)
    fresh = [
        c
        for c in candidates
        if (c.work_a_id, c.work_b_id) not in raised
        and (c.work_b_id, c.work_a_id) not in raised
        and candidate_pair(c) not in apart
    ]
    MergeCandidate.objects.bulk_create(fresh, ignore_conflicts=True)
    return len(fresh)


def _is_open(work: Work) -> bool:
    """A work whose OpenAlex id (if any) does not rule out a match with another's."""
    return work.openalex_id is None or (work.doi or "").startswith(ARXIV_REGISTRANT)


def _pairs_with_an_open_work(group: list[Work]) -> Iterator[tuple[Work, Work]]:
    """Each pair of ``group`` with an open work in it (``_is_open``), once, the older first."""
    for one in (w for w in group if _is_open(w)):
        for other in group:
            if other is one or (_is_open(other) and other.pk < one.pk):
                continue  # itself, or a pair already given from the other side
            yield (one, other) if one.pk < other.pk else (other, one)

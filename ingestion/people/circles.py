"""The circles of stored co-authors: whom the records a byline's co-authors are held
under wrote their latest works with (``identity.circles``), read in two queries."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber

from catalogue.models import Author, Authorship
from identity import Byline
from identity.circles import HUB, circle_of
from ingestion.people.records import WORKS_PER_RECORD, record_key


def with_circles(bylines: list[Byline]) -> list[Byline]:
    """The bylines, each with the circle of the records its co-authors are held under."""
    held = {int(k[1:]) for b in bylines for k in b.coauthor_ids if k[:1] == "a" and k[1:].isdigit()}
    if not held:
        return bylines
    wrote_with = _wrote_with(held)
    return [
        replace(
            byline,
            circle_ids=(
                *byline.circle_ids,
                *circle_of(byline.source_author_id, byline.coauthor_ids, wrote_with),
            ),
        )
        if byline.coauthor_ids
        else byline
        for byline in bylines
    ]


def _wrote_with(author_ids: set[int]) -> dict[str, set[str]]:
    """For each record, the records on its ``WORKS_PER_RECORD`` latest works.

    Only a work's first ``HUB`` + 2 positions are read: a work with more authors
    makes each of its authors a hub, whom no circle counts anyway.
    """
    ranked = Authorship.objects.filter(author_id__in=author_ids).annotate(
        rank=Window(RowNumber(), partition_by=[F("author_id")], order_by=F("work_id").desc())
    )
    authors_of: dict[int, list[int]] = defaultdict(list)
    for author_id, work_id in ranked.filter(rank__lte=WORKS_PER_RECORD).values_list(
        "author_id", "work_id"
    ):
        authors_of[work_id].append(author_id)
    found: dict[str, set[str]] = defaultdict(set)
    rows = Authorship.objects.filter(work_id__in=list(authors_of), position__lte=HUB + 1)
    for work_id, other in rows.values_list("work_id", "author_id").iterator(chunk_size=5000):
        for author_id in authors_of[work_id]:
            if other != author_id:
                found[record_key(author_id)].add(record_key(other))
    return found


def records_held() -> int:
    """About how many author records are held: the planner's count on PostgreSQL (no
    scan), else a count."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples FROM pg_class WHERE oid = %s::regclass",
                [Author._meta.db_table],
            )
            row = cursor.fetchone()
        if row and row[0] > 0:
            return int(row[0])
    return Author.objects.count()

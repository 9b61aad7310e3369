"""Claimed and followed authors are kept fresh: a nightly OpenAlex refresh of them."""

from __future__ import annotations

from datetime import date, timedelta

from django.db.models import Q
from django.utils import timezone

from catalogue.models import Author, ImportRun, Source
from ingestion.importing.requesting import Via, import_run_request
from profiles.models import Follow, Profile

REFRESH_CHUNK = 50  # author ids per OpenAlex filter


def tracked_openalex_ids() -> list[str]:
    """OpenAlex ids of every claimed or followed author."""
    claimed = Profile.objects.values("author_id")
    followed = Follow.objects.values("author_id")
    authors = Author.objects.visible().filter(openalex_id__isnull=False)
    tracked = authors.filter(Q(pk__in=claimed) | Q(pk__in=followed))
    return list(tracked.order_by("openalex_id").values_list("openalex_id", flat=True).distinct())


def _last_refresh_date() -> date:
    last = (
        ImportRun.objects.filter(kind=ImportRun.Kind.REFRESH, status=ImportRun.Status.SUCCEEDED)
        .order_by("-started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    return (last or timezone.now() - timedelta(days=1)).date()


def tracked_authors_refresh() -> list[int]:
    """Ask for what changed since the last refresh, one import run per chunk of authors."""
    ids = tracked_openalex_ids()
    since = _last_refresh_date().isoformat()
    runs = []
    for start in range(0, len(ids), REFRESH_CHUNK):
        run = import_run_request(
            source=Source.OPENALEX,
            kind=ImportRun.Kind.REFRESH,
            parameters={
                "author_ids": ids[start : start + REFRESH_CHUNK],
                "from_updated_date": since,
            },
            via=Via.REFRESH,
        )
        runs.append(run.pk)
    return runs

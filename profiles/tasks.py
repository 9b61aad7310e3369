"""Periodic work on the people layer."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.db.models import Q
from django.utils import timezone

from profiles.models import Follow, Profile
from publications.importing.dispatch import import_run_create
from publications.models import Author, ImportRun, Source

REFRESH_CHUNK = 50  # author ids per OpenAlex filter


def tracked_openalex_ids() -> list[str]:
    """OpenAlex ids of every claimed or followed author."""
    claimed = Profile.objects.values("author_id")
    followed = Follow.objects.values("author_id")
    authors = Author.objects.visible().filter(openalex_id__isnull=False)
    tracked = authors.filter(Q(pk__in=claimed) | Q(pk__in=followed))
    return list(tracked.order_by("openalex_id").values_list("openalex_id", flat=True).distinct())


def _last_refresh_date():
    last = (
        ImportRun.objects.filter(kind=ImportRun.Kind.REFRESH, status=ImportRun.Status.SUCCEEDED)
        .order_by("-started_at")
        .values_list("started_at", flat=True)
        .first()
    )
    return (last or timezone.now() - timedelta(days=1)).date()


@shared_task(name="profiles.tasks.refresh_tracked_authors")
def refresh_tracked_authors() -> list[int]:
    """Nightly: fetch what changed since the last refresh for claimed and followed authors."""
    ids = tracked_openalex_ids()
    since = _last_refresh_date().isoformat()
    runs = []
    for start in range(0, len(ids), REFRESH_CHUNK):
        run = import_run_create(
            source=Source.OPENALEX,
            kind=ImportRun.Kind.REFRESH,
            parameters={
                "author_ids": ids[start : start + REFRESH_CHUNK],
                "from_updated_date": since,
            },
        )
        runs.append(run.pk)
    return runs


@shared_task(name="profiles.tasks.link_added_work", bind=True, max_retries=48)
def link_added_work(self, run_id: int, author_id: int, actor_id: int | None, key: dict):
    """After the import an owner asked for: link the work to their record."""
    from profiles.claims import ownership

    if not ownership.run_is_finished(run_id):
        raise self.retry(countdown=300)  # the run was re-queued to go on where it stopped
    work = ownership.work_link_imported(
        run_id=run_id, author_id=author_id, actor_id=actor_id, key=key
    )
    return work.pk if work else None


NOTIFY_CHUNK = 500  # author ids per notification query


@shared_task(name="profiles.tasks.notify_new_works")
def notify_new_works(author_ids: list[int]) -> int:
    """After an import batch: tell followers of these authors about their new works."""
    from profiles.following import services as following

    created = 0
    for start in range(0, len(author_ids), NOTIFY_CHUNK):
        chunk = author_ids[start : start + NOTIFY_CHUNK]
        created += following.notify_new_works(author_ids=chunk)
    return created


@shared_task(name="profiles.tasks.notify_new_citations")
def notify_new_citations(author_ids: list[int]) -> int:
    """After an import batch: tell followers who asked about new citations of these authors."""
    from profiles.following import services as following

    created = 0
    for start in range(0, len(author_ids), NOTIFY_CHUNK):
        chunk = author_ids[start : start + NOTIFY_CHUNK]
        created += following.notify_new_citations(author_ids=chunk)
    return created


@shared_task(name="profiles.tasks.notify_claimed")
def notify_claimed(author_id: int) -> int:
    """After a claim changed: tell the followers once the record is claimed."""
    from profiles.following import services as following

    return following.notify_claimed(author_id=author_id)


@shared_task(name="profiles.tasks.send_digests", soft_time_limit=3600, time_limit=3900)
def send_digests() -> int:
    """Daily: the e-mail digest of new works for everyone who opted in."""
    from profiles.following import digest

    return digest.digests_send()

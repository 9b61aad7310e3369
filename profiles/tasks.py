"""Celery tasks of the people layer: thin wrappers around its services."""

from __future__ import annotations

from celery import shared_task

from profiles import tracking
from profiles.claims import ownership
from profiles.following import digest
from profiles.following import services as following

NOTIFY_CHUNK = 500  # author ids per notification query


@shared_task(name="profiles.tasks.refresh_tracked_authors")
def refresh_tracked_authors() -> list[int]:
    """Nightly: fetch what changed since the last refresh for claimed and followed authors."""
    return tracking.tracked_authors_refresh()


@shared_task(name="profiles.tasks.link_added_work", bind=True, max_retries=48)
def link_added_work(self, run_id: int, author_id: int, actor_id: int | None, key: dict):
    """After the import an owner asked for: link the work to their record."""
    if not ownership.run_is_finished(run_id):
        raise self.retry(countdown=300)  # the run was re-queued to go on where it stopped
    work = ownership.work_link_imported(
        run_id=run_id, author_id=author_id, actor_id=actor_id, key=key
    )
    return work.pk if work else None


@shared_task(name="profiles.tasks.notify_new_works")
def notify_new_works(author_ids: list[int]) -> int:
    """After an import batch: tell followers of these authors about their new works."""
    created = 0
    for start in range(0, len(author_ids), NOTIFY_CHUNK):
        chunk = author_ids[start : start + NOTIFY_CHUNK]
        created += following.notify_new_works(author_ids=chunk)
    return created


@shared_task(name="profiles.tasks.notify_new_citations")
def notify_new_citations(author_ids: list[int]) -> int:
    """After an import batch: tell followers who asked about new citations of these authors."""
    created = 0
    for start in range(0, len(author_ids), NOTIFY_CHUNK):
        chunk = author_ids[start : start + NOTIFY_CHUNK]
        created += following.notify_new_citations(author_ids=chunk)
    return created


@shared_task(name="profiles.tasks.notify_claimed")
def notify_claimed(author_id: int) -> int:
    """After a claim changed: tell the followers once the record is claimed."""
    return following.notify_claimed(author_id=author_id)


@shared_task(name="profiles.tasks.send_digests", soft_time_limit=3600, time_limit=3900)
def send_digests() -> int:
    """Daily: the e-mail digest of new works for everyone who opted in."""
    return digest.digests_send()

"""What the people layer does when records change: tell the followers, link added works."""

from __future__ import annotations

from django.dispatch import receiver

from catalogue.signals import authors_changed, import_run_ended
from profiles import tasks
from profiles.claims import ownership
from profiles.signals import claim_changed


@receiver(authors_changed, dispatch_uid="profiles.new_work_notifications")
def queue_new_work_notifications(sender, author_ids, **kwargs) -> None:
    """An import batch (or a curation decision) committed: announce new works to followers."""
    if author_ids:
        tasks.notify_new_works.delay(sorted(set(author_ids)))
        tasks.notify_new_citations.delay(sorted(set(author_ids)))


@receiver(claim_changed, dispatch_uid="profiles.claimed_notifications")
def queue_claimed_notification(sender, author_id, **kwargs) -> None:
    """A claim changed: if the record is now claimed, its followers hear about it once."""
    tasks.notify_claimed.delay(author_id)


@receiver(import_run_ended, dispatch_uid="profiles.link_added_works")
def link_added_works(sender, run_id, **kwargs) -> None:
    """An import an owner asked for ended: the works it brought go on their record."""
    for link in ownership.works_to_link_after_import(run_id=run_id):
        tasks.link_added_work.delay(*link)

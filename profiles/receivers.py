"""What the people layer does when records change: tell the followers."""

from __future__ import annotations

from django.dispatch import receiver

from profiles.signals import claim_changed
from publications.signals import authors_changed


@receiver(authors_changed, dispatch_uid="profiles.new_work_notifications")
def queue_new_work_notifications(sender, author_ids, **kwargs) -> None:
    """An import batch (or a curation decision) committed: announce new works to followers."""
    from profiles import tasks

    if author_ids:
        tasks.notify_new_works.delay(sorted(set(author_ids)))


@receiver(claim_changed, dispatch_uid="profiles.claimed_notifications")
def queue_claimed_notification(sender, author_id, **kwargs) -> None:
    """A claim changed: if the record is now claimed, its followers hear about it once."""
    from profiles import tasks

    tasks.notify_claimed.delay(author_id)

"""What the publications app does when its own signals fire."""

from __future__ import annotations

from django.dispatch import receiver

from publications.signals import authors_changed


@receiver(authors_changed, dispatch_uid="publications.similarities_after_import")
def queue_similarities(sender, author_ids: list[int], **kwargs) -> None:
    """New or changed works need their matches, and older works may now match them.

    The signal is sent once the batch has committed, so the task reads what it wrote.
    """
    from publications import tasks

    if author_ids:
        tasks.compute_similarities.delay(author_ids=list(author_ids))

"""What the similarity app does when records change: ask for their matches."""

from __future__ import annotations

from django.dispatch import receiver

from catalogue.signals import authors_changed
from similarity import tasks
from similarity.backlog import backlog_ask


@receiver(authors_changed, dispatch_uid="publications.similarities_after_import")
def queue_similarities(sender, author_ids: list[int], **kwargs) -> None:
    """New or changed works need their matches, and older works may now match them.

    The signal is sent once the batch has committed, so the run reads what it
    wrote. The request waits in the backlog: one run takes every batch's.
    """
    if author_ids:
        backlog_ask(author_ids=author_ids)
        tasks.similarities_catch_up.delay()

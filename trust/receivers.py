"""Queue a recomputation whenever evidence about an author changes.

Every signal below is sent after its change has committed, so the task reads
the new state.
"""

from __future__ import annotations

from django.dispatch import receiver

from profiles.signals import claim_changed, follow_changed, report_upheld
from publications.signals import authors_changed


def _queue(author_ids, reason: str) -> None:
    from trust import tasks

    ids = sorted({int(pk) for pk in author_ids or () if pk})
    if ids:
        tasks.recompute_authors.delay(ids, reason)


@receiver(authors_changed, dispatch_uid="trust.recompute_after_import")
def after_import(sender, author_ids=(), **kwargs) -> None:
    _queue(author_ids, "works or links imported or curated")


@receiver(claim_changed, dispatch_uid="trust.recompute_after_claim")
def after_claim(sender, author_id=None, **kwargs) -> None:
    from trust import tasks

    if author_id:
        tasks.recompute_claimed.delay(int(author_id))


@receiver(follow_changed, dispatch_uid="trust.recompute_after_follow")
def after_follow(sender, author_id=None, **kwargs) -> None:
    _queue([author_id], "followers changed")


@receiver(report_upheld, dispatch_uid="trust.recompute_after_report")
def after_report(sender, author_id=None, **kwargs) -> None:
    _queue([author_id], "misattribution report upheld")

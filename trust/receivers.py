"""Queue a recomputation whenever evidence about an author changes.

Every signal below is sent after its change has committed, so the task reads
the new state.
"""

from __future__ import annotations

from django.db.models.signals import post_migrate
from django.dispatch import receiver

from catalogue.models import AuditEvent
from catalogue.signals import authors_changed
from profiles.signals import claim_changed, follow_changed, report_upheld
from trust import services, tasks


def _queue(author_ids, reason: str) -> None:
    ids = sorted({int(pk) for pk in author_ids or () if pk})
    if ids:
        tasks.recompute_authors.delay(ids, reason)


@receiver(authors_changed, dispatch_uid="trust.recompute_after_import")
def after_import(sender, author_ids=(), **kwargs) -> None:
    _queue(author_ids, "works or links imported or curated")


@receiver(claim_changed, dispatch_uid="trust.recompute_after_claim")
def after_claim(sender, author_id=None, **kwargs) -> None:
    if author_id:
        tasks.recompute_claimed.delay(int(author_id))


@receiver(follow_changed, dispatch_uid="trust.recompute_after_follow")
def after_follow(sender, author_id=None, **kwargs) -> None:
    _queue([author_id], "followers changed")


@receiver(report_upheld, dispatch_uid="trust.recompute_after_report")
def after_report(sender, author_id=None, **kwargs) -> None:
    _queue([author_id], "misattribution report upheld")


REOPENING_MIGRATION = ("profiles", "0004_email_claims_back_to_review")


@receiver(post_migrate, dispatch_uid="trust.rescore_reopened_claims")
def rescore_reopened_claims(sender, app_config=None, plan=None, using="default", **kwargs):
    """Score again the records whose claims a migration just put back into staff review.

    Runs once ``migrate`` has finished, so the scoring code meets the schema it expects.
    """
    if app_config is None or app_config.label != "trust":
        return
    applied = {(m.app_label, m.name) for m, backwards in plan or () if not backwards}
    if REOPENING_MIGRATION not in applied:
        return
    events = AuditEvent.objects.using(using).filter(
        action="claim_reopen", data__migration=".".join(REOPENING_MIGRATION)
    )
    ids = {data.get("author_id") for data in events.values_list("data", flat=True)}
    ids = [int(pk) for pk in ids if pk]
    if ids:
        services.trust_scores_recompute(author_ids=ids, reason="claim back in staff review")

"""What the people layer does when records change: tell the followers, link added works."""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from catalogue.signals import authors_changed, import_run_ended
from pages import cache as pagecache
from profiles import tasks
from profiles.claims import ownership
from profiles.models import Claim, Follow, Profile
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


@receiver(post_save, sender=Profile, dispatch_uid="profiles.page_after_profile_save")
@receiver(post_delete, sender=Profile, dispatch_uid="profiles.page_after_profile_delete")
@receiver(post_save, sender=Claim, dispatch_uid="profiles.page_after_claim_save")
@receiver(post_delete, sender=Claim, dispatch_uid="profiles.page_after_claim_delete")
@receiver(post_save, sender=Follow, dispatch_uid="profiles.page_after_follow_save")
@receiver(post_delete, sender=Follow, dispatch_uid="profiles.page_after_follow_delete")
def renew_researcher_page(sender, instance, **kwargs) -> None:
    """The owner's profile, a claim or a follow changed: the cached page is stale."""
    pagecache.authors_bump([instance.author_id])


@receiver(m2m_changed, sender=Profile.pinned_works.through, dispatch_uid="profiles.page_after_pins")
def renew_page_after_pins(sender, instance: Profile, action: str, **kwargs) -> None:
    """The owner pinned or unpinned works: the pins lead the first page of works.

    The pins have no reverse accessor on Work, so ``instance`` is always the profile.
    """
    if action.startswith("post_"):
        pagecache.authors_bump([instance.author_id])

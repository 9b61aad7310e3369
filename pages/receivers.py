"""What the publications app does when its own signals fire."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from catalogue.models import Author, Funder, Institution, Topic, Venue, Work
from catalogue.signals import authors_changed
from pages import cache as pagecache


@receiver(authors_changed, dispatch_uid="publications.similarities_after_import")
def queue_similarities(sender, author_ids: list[int], **kwargs) -> None:
    """New or changed works need their matches, and older works may now match them.

    The signal is sent once the batch has committed, so the run reads what it
    wrote. The request waits in the backlog: one run takes every batch's.
    """
    from ingestion import tasks
    from similarity.backlog import backlog_ask

    if author_ids:
        backlog_ask(author_ids=author_ids)
        tasks.similarities_catch_up.delay()


@receiver(authors_changed, dispatch_uid="publications.pages_after_import")
def renew_pages(sender, author_ids=(), work_ids=None, **kwargs) -> None:
    """Imported or curated: the researchers' and works' cached pages are stale."""
    pagecache.authors_bump(author_ids or ())
    pagecache.works_changed(work_ids or ())


@receiver(post_save, sender=Work, dispatch_uid="publications.page_after_work_save")
@receiver(post_delete, sender=Work, dispatch_uid="publications.page_after_work_delete")
def renew_work_page(sender, instance: Work, **kwargs) -> None:
    """An edited work shows on its page, in its authors' work lists and in citation lists."""
    pagecache.works_changed([instance.pk])
    pagecache.authors_bump(author_id for _, author_id in pagecache.work_authors(instance.pk))


@receiver(post_save, sender=Author, dispatch_uid="publications.page_after_author_save")
@receiver(post_delete, sender=Author, dispatch_uid="publications.page_after_author_delete")
def renew_researcher_page(sender, instance: Author, **kwargs) -> None:
    pagecache.authors_bump([instance.pk])


@receiver(post_save, sender=Venue, dispatch_uid="publications.pages_after_venue_save")
@receiver(post_save, sender=Topic, dispatch_uid="publications.pages_after_topic_save")
@receiver(post_save, sender=Institution, dispatch_uid="publications.pages_after_institution_save")
@receiver(post_save, sender=Funder, dispatch_uid="publications.pages_after_funder_save")
@receiver(post_delete, sender=Venue, dispatch_uid="publications.pages_after_venue_delete")
@receiver(post_delete, sender=Topic, dispatch_uid="publications.pages_after_topic_delete")
@receiver(
    post_delete, sender=Institution, dispatch_uid="publications.pages_after_institution_delete"
)
@receiver(post_delete, sender=Funder, dispatch_uid="publications.pages_after_funder_delete")
def renew_pages_naming(sender, **kwargs) -> None:
    """A venue, topic, institution or funder edited (by staff): any page may name it."""
    pagecache.names_bump()

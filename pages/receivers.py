"""The one place that renews kept pages: every change that a page shows lands here.

Domain code never touches the page cache. Model saves and deletes, and the signals
the apps send when they write what pages show (an import batch, refreshed metrics,
trust scores, "More like this" lists), bump the versions of the pages that show them
(``pages.cache``); what changes a list entry also has the entry drawn again
(``pages.entries``), with the work page's summary (``pages.summaries``) and the "More
like this" lists showing the work (``pages.similar``), after the change commits; the
researcher pages' kept summaries and works sections (``pages.researcher_summaries``,
``pages.researcher_works``) are forgotten with them, and so are the pages kept whole
(``pages.researcher_pages``, ``pages.work_pages``).
"""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.dispatch import receiver

from catalogue.models import (
    Author,
    Authorship,
    Funder,
    Institution,
    Topic,
    UnlinkedAuthorship,
    Venue,
    Work,
    WorkSimilarity,
)
from catalogue.signals import authors_changed, metrics_refreshed
from ingestion.references import reference_previews_stored
from pages import cache as pagecache
from pages import (
    entries,
    researcher_pages,
    researcher_summaries,
    researcher_works,
    similar,
    summaries,
    work_pages,
)
from pages.drawing import draw_later
from pages.tasks import (
    draw_entries,
    draw_researcher_summaries,
    draw_researcher_works,
    draw_similar_lists,
    draw_summaries,
    draw_work_pages,
)
from profiles.models import Claim, Follow, Profile
from similarity.signals import similarities_stored
from trust.signals import trust_scored

# What a list entry shows of a researcher: the name (and the address made of it).
ENTRY_AUTHOR_FIELDS = {"display_name", "is_deleted", "merged_into"}


def _entries_stale(work_ids, *, summaries_drawn=None) -> None:
    """Forget these works' list entries and summaries now, and the "More like this"
    lists showing them (a list shows a part of what an entry shows); draw them again
    once the change commits. The pages listing them are kept under the works'
    versions, not those of every name an entry shows: the versions are renewed.

    ``summaries_drawn``: the works whose summaries are drawn again (default: all);
    the others' are drawn by their next visitor."""
    ids = entries.entries_forget(work_ids)
    pagecache.works_bump(ids)
    work_pages.pages_linked_forget(ids)  # their pages, and those listing them
    researcher_works.sections_listing_forget(ids)  # their visitors draw them
    researcher_pages.pages_listing_forget(ids)
    draw_later(draw_entries, ids)
    forgotten = summaries.summaries_forget(ids)
    if summaries_drawn is not None:
        forgotten = sorted(set(forgotten) & {int(pk) for pk in summaries_drawn})
    draw_later(draw_summaries, forgotten)
    _similar_stale(similar.works_listing(ids))
    draw_later(draw_work_pages, forgotten)  # from the parts drawn above


def _authors_stale(author_ids, *, draw: bool = True) -> None:
    """What these researchers' pages show of them changed: renew the pages, forget the
    kept summaries now and, with ``draw``, draw them again once the change commits.

    An import or an edited work changes the researchers' figures, which are computed
    after it (``metrics_refreshed`` lands here again, and draws): their summaries are
    only forgotten, so none is drawn twice for one change."""
    ids = list(author_ids)
    pagecache.authors_bump(ids)
    forgotten = researcher_summaries.summaries_forget(ids)
    sections = researcher_works.sections_forget(ids)
    researcher_pages.pages_forget(ids)  # drawn again with the sections
    if draw:
        draw_later(draw_researcher_summaries, forgotten)
        draw_later(draw_researcher_works, sections)


def _summaries_stale(work_ids) -> None:
    """Forget these works' summaries (and pages) now; draw them again once the change
    commits."""
    forgotten = work_pages.pages_forget(summaries.summaries_forget(work_ids))
    draw_later(draw_summaries, forgotten)
    draw_later(draw_work_pages, forgotten)


def _similar_stale(work_ids) -> None:
    """Forget these works' "More like this" lists now; draw them again once the change
    commits."""
    draw_later(draw_similar_lists, work_pages.pages_forget(similar.lists_forget(work_ids)))


@receiver(authors_changed, dispatch_uid="publications.pages_after_import")
def renew_pages(sender, author_ids=(), work_ids=None, **kwargs) -> None:
    """Imported or curated: the researchers' and works' cached pages are stale."""
    _authors_stale(author_ids or (), draw=False)
    pagecache.works_changed(work_ids or ())
    # Every work naming a researcher the batch touched may show a new name: all their
    # entries are drawn again, but only the batch's own works' summaries (a batch
    # touches many researchers, whose other works would be drawn again batch after
    # batch; a name seldom changes, and a forgotten summary is drawn by its visitor).
    own = list(work_ids or ())
    _entries_stale([*own, *entries.works_naming(author_ids or ())], summaries_drawn=own)


@receiver(post_save, sender=Work, dispatch_uid="publications.page_after_work_save")
@receiver(post_delete, sender=Work, dispatch_uid="publications.page_after_work_delete")
def renew_work_page(sender, instance: Work, **kwargs) -> None:
    """An edited work shows on its page, in its authors' work lists and in citation lists."""
    pagecache.works_changed([instance.pk])
    _authors_stale((a for _, a in pagecache.work_authors(instance.pk)), draw=False)
    if not kwargs.get("raw"):
        _entries_stale([instance.pk])


@receiver(pre_delete, sender=Work, dispatch_uid="pages.similar_before_work_delete")
def forget_lists_showing_work(sender, instance: Work, **kwargs) -> None:
    """A work about to go: the lists showing it lose it (its matches go with it)."""
    _similar_stale(similar.works_listing([instance.pk]))


@receiver(post_save, sender=Author, dispatch_uid="publications.page_after_author_save")
@receiver(post_delete, sender=Author, dispatch_uid="publications.page_after_author_delete")
def renew_researcher_page(sender, instance: Author, update_fields=None, **kwargs) -> None:
    _authors_stale([instance.pk])
    if update_fields is None or ENTRY_AUTHOR_FIELDS & set(update_fields):
        _entries_stale(entries.works_naming([instance.pk]))


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
def renew_pages_naming(sender, instance=None, **kwargs) -> None:
    """A venue, topic, institution or funder edited (by staff): any page may name it."""
    pagecache.names_bump()
    if kwargs.get("created") is False:
        _names_stale(sender, instance.pk)


def _names_stale(sender, pk: int) -> None:
    """A venue, topic, institution or funder edited or about to go: the list entries
    (venues) and the summaries (all four) of the works naming it."""
    if sender is Venue:
        _entries_stale(entries.works_of_venue(pk))
    elif sender is Institution:
        _summaries_stale(summaries.works_naming_institution(pk))
        _authors_stale(researcher_summaries.researchers_at(pk))
    elif sender is Topic:
        _summaries_stale(summaries.works_of_topic(pk))
    elif sender is Funder:
        _summaries_stale(summaries.works_of_funder(pk))


@receiver(post_save, sender=Authorship, dispatch_uid="pages.entries_after_authorship_save")
@receiver(post_delete, sender=Authorship, dispatch_uid="pages.entries_after_authorship_delete")
@receiver(post_save, sender=UnlinkedAuthorship, dispatch_uid="pages.entries_after_name_save")
@receiver(post_delete, sender=UnlinkedAuthorship, dispatch_uid="pages.entries_after_name_delete")
def forget_entry_of_byline(sender, instance, **kwargs) -> None:
    """A name added to, changed on or taken off a byline: the work's entry shows it, and
    a researcher taken off lists it no more."""
    if not kwargs.get("raw"):
        _entries_stale([instance.work_id])
        taken_off = [getattr(instance, "author_id", None)]
        researcher_works.sections_forget(taken_off)
        researcher_pages.pages_forget(taken_off)


@receiver(pre_delete, sender=Venue, dispatch_uid="pages.entries_before_venue_delete")
@receiver(pre_delete, sender=Topic, dispatch_uid="pages.summaries_before_topic_delete")
@receiver(pre_delete, sender=Institution, dispatch_uid="pages.summaries_before_place_delete")
@receiver(pre_delete, sender=Funder, dispatch_uid="pages.summaries_before_funder_delete")
def forget_drawings_naming(sender, instance, **kwargs) -> None:
    """A venue, topic, institution or funder about to go: what names it is drawn
    again (its links go with it, so they are read before the delete)."""
    _names_stale(sender, instance.pk)


@receiver(metrics_refreshed, dispatch_uid="pages.after_metrics")
@receiver(trust_scored, dispatch_uid="pages.after_trust_scores")
def renew_researcher_figures(sender, author_ids: list[int], **kwargs) -> None:
    """Stored figures or trust scores were written: the researchers' pages show them."""
    _authors_stale(author_ids)


@receiver(similarities_stored, dispatch_uid="pages.after_similarities")
def renew_more_like_this(sender, work_ids: list[int], **kwargs) -> None:
    """The works' "More like this" lists are replaced: their pages show them, and
    their kept lists are drawn again once the new matches commit."""
    pagecache.works_bump(work_ids)
    _similar_stale(work_ids)


@receiver(post_save, sender=WorkSimilarity, dispatch_uid="pages.after_similarity_save")
def renew_more_like_this_of_match(sender, instance: WorkSimilarity, **kwargs) -> None:
    """One match saved (the admin): the work's list may show it.

    Deletes are not listened to: a receiver would make every bulk delete of matches
    read them row by row. Matches are replaced through ``similarities_stored``.
    """
    if not kwargs.get("raw"):
        pagecache.works_bump([instance.work_id])
        _similar_stale([instance.work_id])


@receiver(post_save, sender=Profile, dispatch_uid="profiles.page_after_profile_save")
@receiver(post_delete, sender=Profile, dispatch_uid="profiles.page_after_profile_delete")
@receiver(post_save, sender=Claim, dispatch_uid="profiles.page_after_claim_save")
@receiver(post_delete, sender=Claim, dispatch_uid="profiles.page_after_claim_delete")
@receiver(post_save, sender=Follow, dispatch_uid="profiles.page_after_follow_save")
@receiver(post_delete, sender=Follow, dispatch_uid="profiles.page_after_follow_delete")
def renew_researcher_page_of_owner(sender, instance, **kwargs) -> None:
    """The owner's profile, a claim or a follow changed: the cached page is stale."""
    _authors_stale([instance.author_id])


@receiver(m2m_changed, sender=Profile.pinned_works.through, dispatch_uid="profiles.page_after_pins")
def renew_researcher_page_after_pins(sender, instance: Profile, action: str, **kwargs) -> None:
    """The owner pinned or unpinned works: the pins lead the first page of works.

    The pins have no reverse accessor on Work, so ``instance`` is always the profile.
    """
    if action.startswith("post_"):
        _authors_stale([instance.author_id])


@receiver(reference_previews_stored, dispatch_uid="pages.after_reference_previews")
def renew_named_references(sender, work_ids: list[int], **kwargs) -> None:
    """Cited works not held here were named: the pages listing them show the names."""
    pagecache.works_bump(work_ids)
    work_pages.pages_forget(work_ids)

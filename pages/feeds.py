"""Atom feed of a researcher's works: ``/researchers/<id>/feed.atom``.

An entry's id is the work's short address (``/works/<id>/``), which no change of
title moves; each name of the byline (the first ``FEED_AUTHOR_NAMES``) is an
``<author>`` of its own; ``<updated>`` and ``<published>`` are the record's own
dates (when its source last changed it, when it was published), never the time
of our import. ``<published>`` is an RFC 3339 timestamp: a work whose source
gives only the year or the month of publication has none, rather than a day
nobody gave.
"""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from catalogue import display, selectors
from catalogue.dates import DAY
from catalogue.filters import ORDERINGS, Sort
from catalogue.models import Author, Work
from config.sites import absolute_url

FEED_LENGTH = 50
FEED_AUTHOR_NAMES = 10


class WorksAtomFeed(Atom1Feed):
    """Atom with one ``<author>`` per name of an entry's byline (``authors``: name, address)."""

    def add_item_elements(self, handler, item) -> None:
        super().add_item_elements(handler, item)
        for name, uri in item.get("authors") or ():
            handler.startElement("author", {})
            handler.addQuickElement("name", name)
            if uri:
                handler.addQuickElement("uri", uri)
            handler.endElement("author")


class ResearcherWorksFeed(Feed):
    """The researcher's works, newest first; readers see new works as they are imported."""

    feed_type = WorksAtomFeed

    def _absolute(self, path: str) -> str:
        # The public site's address (config.sites), not the Host header of whoever asked.
        return absolute_url(path)

    def get_object(self, request, pk: int) -> Author:
        author = get_object_or_404(Author.objects.filter(is_deleted=False), pk=pk)
        return author.merged_into or author

    def title(self, author: Author) -> str:
        return f"Works of {_name(author.display_name)} · {settings.SITE_NAME}"

    def subtitle(self, author: Author) -> str:
        name = _name(author.display_name)
        return f"Works of {name} imported from OpenAlex and arXiv, newest first."

    def link(self, author: Author) -> str:
        return self._absolute(author.get_absolute_url())

    def feed_url(self, author: Author) -> str:
        return self._absolute(reverse("profiles:researcher_feed", kwargs={"pk": author.pk}))

    def author_name(self, author: Author) -> str:
        return _name(author.display_name)

    def items(self, author: Author) -> list[Work]:
        works = selectors.author_works(author).order_by(*ORDERINGS[Sort.NEWEST])
        return list(works[:FEED_LENGTH])

    def item_title(self, work: Work) -> str:
        return display.clip_line(work.title, "title") or f"Untitled work {work.pk}"

    def item_description(self, work: Work) -> str:
        # Atom carries this as type="html": sanitised, so a reader renders nothing that runs;
        # as long as the work page shows it, and without the characters XML cannot carry.
        return display.abstract_html(work.abstract)

    def item_link(self, work: Work) -> str:
        return self._absolute(work.get_absolute_url())

    def item_guid(self, work: Work) -> str:
        return self._absolute(reverse("publications:work-short", kwargs={"pk": work.pk}))

    item_guid_is_permalink = True

    def item_pubdate(self, work: Work) -> datetime | None:
        """The day of publication, when the source gives a day (``<published>`` needs one)."""
        published = work.published
        if published is None or published.precision != DAY:
            return None
        return datetime.combine(published.span()[0], time.min, tzinfo=UTC)

    def item_updateddate(self, work: Work) -> datetime:
        """When the source last changed the record, else its day of publication or creation
        there; the time of our import only for a record that gives none (Atom needs one)."""
        if work.source_updated_at:
            return work.source_updated_at
        if published := self.item_pubdate(work):
            return published
        if work.source_created_date:
            return datetime.combine(work.source_created_date, time.min, tzinfo=UTC)
        return work.created_at

    def item_author_name(self, work: Work) -> None:
        return None  # each name is an <author> of its own (item_extra_kwargs)

    def item_extra_kwargs(self, work: Work) -> dict:
        authors = []
        for entry in work.byline()[:FEED_AUTHOR_NAMES]:
            author = getattr(entry, "author", None)
            name = _name(author.display_name if author else entry.raw_name)
            if name:
                authors.append((name, self._absolute(author.get_absolute_url()) if author else ""))
        return {"authors": authors}

    def item_categories(self, work: Work) -> list[str]:
        category = display.clip(work.arxiv_primary_category, "name")
        return [category] if category else []


def _name(value: str) -> str:
    return display.clip(value, "name")


researcher_feed = ResearcherWorksFeed()

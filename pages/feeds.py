"""Atom feed of a researcher's works: ``/researchers/<id>/feed.atom``."""

from __future__ import annotations

from datetime import UTC, datetime, time

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from catalogue import display, selectors
from catalogue.filters import ORDERINGS, Sort
from catalogue.models import Author, Work
from config.sites import absolute_url

FEED_LENGTH = 50
FEED_AUTHOR_NAMES = 10


class ResearcherWorksFeed(Feed):
    """The researcher's works, newest first; readers see new works as they are imported."""

    feed_type = Atom1Feed

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

    def item_pubdate(self, work: Work) -> datetime:
        if work.publication_date:
            return datetime.combine(work.publication_date, time.min, tzinfo=UTC)
        if work.publication_year:
            return datetime(work.publication_year, 1, 1, tzinfo=UTC)
        return work.created_at

    def item_updateddate(self, work: Work) -> datetime:
        return work.updated_at

    def item_author_name(self, work: Work) -> str:
        names = [_name(a.author.display_name if a.author else a.raw_name) for a in work.byline()]
        shown = ", ".join(names[:FEED_AUTHOR_NAMES])
        return f"{shown} et al." if len(names) > FEED_AUTHOR_NAMES else shown

    def item_categories(self, work: Work) -> list[str]:
        category = display.clip(work.arxiv_primary_category, "name")
        return [category] if category else []


def _name(value: str) -> str:
    return display.clip(value, "name")


researcher_feed = ResearcherWorksFeed()

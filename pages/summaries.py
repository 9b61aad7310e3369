"""What a work page shows of the work itself, drawn ahead of its visitors and kept.

A work page is three parts: the work's own facts (its title, byline, abstract,
details, identifiers, funding, topics and where each fact comes from, with the
page's ``<head>`` metadata), its "More like this" list (``pages.similar``) and its
references and citing works (read for each page of them). Reading the byline's first
names and its last with their institutions, and drawing the facts, was most of the
cost of a work page nobody had asked for lately, and is the same for every visitor.
So the first part is drawn once, when the work or a name it shows changes, and kept
as a ``WorkSummary`` row that the page reads in one small query.

``pages.receivers`` forgets a summary, and has it drawn again once the change
commits, whenever the work's list entry goes stale (an imported, edited, merged or
deleted work, a name added to or taken off its byline, a renamed researcher or
venue), and when staff edit an institution, topic or funder it names. The page of
the whole byline (``?authors=all``) is drawn for each visitor, never kept. What
depends on the day (an embargo still running) is not part of a summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from django.template.loader import get_template
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from catalogue import selectors
from catalogue.models import Authorship, Grant, Work, WorkTopic
from pages import kept, metadata
from pages.models import WorkSummary

TEMPLATE = "publications/_work_record.html"
METADATA_TEMPLATE = "publications/_work_metadata.html"
# Raise when the drawing code changes what a summary holds: every kept one is drawn again.
FORMAT = "1"
# Summaries drawn and written at once.
CHUNK = 200


@dataclass(frozen=True)
class Summary:
    html: SafeString
    metadata: SafeString

    def fields(self) -> dict[str, str]:
        return {"html": str(self.html), "metadata": str(self.metadata)}


@cache
def _templates() -> str:
    return kept.generation_of(TEMPLATE, kept.generation_of(METADATA_TEMPLATE, FORMAT))


def generation() -> str:
    """A token of both templates' text, ``FORMAT`` and the site's name and address."""
    return kept.for_site(_templates())


def draw(work: Work, *, all_authors: bool = False, authors_page: int = 1) -> Summary:
    """The summary of ``work`` (read by ``selectors.work_for_page``): with the byline's
    first names and its last, or with page ``authors_page`` of the whole byline."""
    page = selectors.work_page(
        work, today=timezone.localdate(), all_authors=all_authors, authors_page=authors_page
    )
    html = get_template(TEMPLATE).render({"work": work, "page": page}).strip()
    head = get_template(METADATA_TEMPLATE).render(metadata.work_head(page))
    return Summary(mark_safe(html), mark_safe(head))  # noqa: S308 - drawn from escaped fields


def summary_for(work: Work) -> Summary:
    """The work's summary: kept, or drawn now and kept where the write goes through."""
    row = kept.kept_row(WorkSummary, work.pk, generation(), ("html", "metadata"))
    if row:
        return Summary(mark_safe(row[0]), mark_safe(row[1]))  # noqa: S308 - drawn as above
    drawn = draw(work)
    kept.keep_if_possible(WorkSummary, {work.pk: drawn.fields()}, generation())
    return drawn


def summaries_refresh(work_ids: Iterable[int]) -> int:
    """Draw and keep the summaries of the works ``work_ids`` still shown; how many."""
    drawn = 0
    for chunk in kept.chunks(work_ids, CHUNK):
        works = selectors.works_for_page(chunk)
        kept.keep(WorkSummary, {work.pk: draw(work).fields() for work in works}, generation())
        drawn += len(works)
    return drawn


def summaries_forget(work_ids: Iterable[int]) -> list[int]:
    """The summaries of these works are stale: forget them. Returns the ids."""
    return kept.forget(WorkSummary, work_ids)


def works_naming_institution(institution_id: int) -> list[int]:
    """Works whose bylines name the institution (an authorship's place)."""
    rows = Authorship.institutions.through.objects.filter(institution_id=institution_id)
    return list(rows.values_list("authorship__work_id", flat=True).distinct())


def works_of_topic(topic_id: int) -> list[int]:
    return list(WorkTopic.objects.filter(topic_id=topic_id).values_list("work_id", flat=True))


def works_of_funder(funder_id: int) -> list[int]:
    grants = Grant.objects.filter(funder_id=funder_id)
    return list(grants.values_list("work_id", flat=True).distinct())

"""What a researcher page shows of the record itself, drawn ahead of its visitors and kept.

A researcher page is the record's facts (its header, the overview with its figures
and affiliations, the trust snapshot, citations per year and the research graph's
known part), its works as the query string asks for them (their entries are kept:
``pages.entries``), and the visitor's own panels. Gathering and drawing the facts
was most of the cost of a page nobody had asked for lately, and they are the same
for every visitor and every query string. So they are drawn once, when anything
they show changes, and kept as a ``ResearcherSummary`` row that the page reads in
one small query.

``pages.receivers`` forgets a summary, and has it drawn again once the change
commits, wherever the researcher's page version is renewed (an edit, an import
touching the record, refreshed figures or trust score, a profile, claim or follow),
and when staff edit or delete the institution it names as the last known one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from functools import cache

from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from catalogue.models import Author
from pages import kept
from pages.models import ResearcherSummary
from pages.researcher_page import authors_in_full, in_full, researcher_facts

TEMPLATE = "profiles/_researcher_facts.html"
FIGURES_TEMPLATE = "profiles/_researcher_figures.html"
# Raise when the drawing code changes what a summary holds: every kept one is drawn again.
FORMAT = "1"
# Summaries drawn and written at once.
CHUNK = 200


@dataclass(frozen=True)
class Summary:
    html: SafeString
    figures: SafeString
    # Its figures and trust score were there to draw: a summary saying "not computed
    # yet" is drawn for each visit until they are (their writers then draw it again).
    settled: bool = True

    def fields(self) -> dict[str, str]:
        return {"html": str(self.html), "figures": str(self.figures)}


@cache
def _templates() -> str:
    return kept.generation_of(TEMPLATE, kept.generation_of(FIGURES_TEMPLATE, FORMAT))


def generation() -> str:
    """A token of both templates' text, ``FORMAT`` and the site's name and address."""
    return kept.for_site(_templates())


def draw(author: Author) -> Summary:
    """The summary of ``author`` (read by ``author_for_page(pk, in_full=True)``)."""
    facts = researcher_facts(author)
    context = {field.name: getattr(facts, field.name) for field in fields(facts)}
    html = get_template(TEMPLATE).render(context).strip()
    # The figures end as the graph section does, with its blank lines (no line break
    # closes their template).
    figures = get_template(FIGURES_TEMPLATE).render(context).lstrip()
    settled = facts.metrics is not None and not getattr(
        facts.sections.get("trust"), "queued", False
    )
    return Summary(mark_safe(html), mark_safe(figures), settled)  # noqa: S308 - escaped fields


def summary_for(author: Author) -> Summary:
    """The researcher's summary: kept, or drawn now (from the record read in full) and
    kept where the write goes through."""
    row = kept.kept_row(ResearcherSummary, author.pk, generation(), ("html", "figures"))
    if row:
        return Summary(mark_safe(row[0]), mark_safe(row[1]))  # noqa: S308 - drawn as above
    drawn = draw(in_full(author))
    if drawn.settled:
        kept.keep_if_possible(ResearcherSummary, {author.pk: drawn.fields()}, generation())
    return drawn


def summaries_refresh(author_ids: Iterable[int]) -> int:
    """Draw and keep the summaries of the researchers ``author_ids`` still shown whose
    figures and trust score are there to draw; how many."""
    drawn = 0
    for chunk in kept.chunks(author_ids, CHUNK):
        summaries = {a.pk: draw(a) for a in authors_in_full(chunk)}
        settled = {pk: summary.fields() for pk, summary in summaries.items() if summary.settled}
        kept.keep(ResearcherSummary, settled, generation())
        drawn += len(settled)
    return drawn


def summaries_forget(author_ids: Iterable[int]) -> list[int]:
    """The summaries of these researchers are stale: forget them. Returns the ids."""
    return kept.forget(ResearcherSummary, author_ids)


def researchers_at(institution_id: int) -> list[int]:
    """Researchers whose last known institution is this one (their headers name it)."""
    at = Author.objects.filter(last_known_institution_id=institution_id)
    return list(at.values_list("pk", flat=True))

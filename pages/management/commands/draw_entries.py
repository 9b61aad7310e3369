"""Draw and keep what work lists and work pages show of each work: its list entry
(``pages.entries``), its "More like this" list (``pages.similar``) and its page's
summary (``pages.summaries``); and of each researcher, its page's summary
(``pages.researcher_summaries``), its works section as a visitor without a query
string sees it (``pages.researcher_works``); and of both, the page whole as a
visitor without cookie or query string sees it (``pages.work_pages``,
``pages.researcher_pages``).

After a bulk load, or a change to a template: pages then read what is kept
instead of drawing it for their first visitors.

    python manage.py draw_entries            # works and researchers without a current drawing
    python manage.py draw_entries --all      # every one, drawn again
    python manage.py draw_entries --part 1/2 & python manage.py draw_entries --part 2/2
                                             # in two processes, each drawing half
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.management.base import BaseCommand, CommandError
from django.db.models import F, Model

from catalogue.models import Author, Work
from pages import (
    entries,
    researcher_pages,
    researcher_summaries,
    researcher_works,
    researchers,
    similar,
    summaries,
    work_pages,
    works,
)
from pages.models import (
    ResearcherPage,
    ResearcherSummary,
    ResearcherWorks,
    SimilarList,
    WorkEntry,
    WorkPage,
    WorkSummary,
)

BATCH = 5_000


class Command(BaseCommand):
    help = "Draw and keep the list entries, similar lists and summaries of works and researchers."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="draw every one again")
        parser.add_argument(
            "--part",
            default="1/1",
            help="K/N: draw only the records whose id is K-1 modulo N, to share the drawing "
            "between N processes (default 1/1: all)",
        )

    def handle(self, *args, **options) -> None:
        options["part"] = _part(options["part"])
        kinds = (
            ("entries", WorkEntry, entries.generation(), entries.entries_refresh),
            ("similar lists", SimilarList, similar.generation(), similar.lists_refresh),
            ("summaries", WorkSummary, summaries.generation(), summaries.summaries_refresh),
            # drawn from the three above: after them
            ("work pages", WorkPage, work_pages.generation(), works.pages_refresh),
            (
                "researcher summaries",
                ResearcherSummary,
                researcher_summaries.generation(),
                researcher_summaries.summaries_refresh,
            ),
            (
                "researcher works sections",
                ResearcherWorks,
                researcher_works.generation(),
                researcher_works.sections_refresh,
            ),
            (  # drawn from the two above: after them
                "researcher pages",
                ResearcherPage,
                researcher_pages.generation(),
                researchers.pages_refresh,
            ),
        )
        for label, kept, generation, refresh in kinds:
            drawn = self._draw(kept, generation, refresh, options, label)
            self.stdout.write(f"{drawn} {label} drawn")

    def _draw(
        self,
        kept: type[Model],
        generation: str,
        refresh: Callable[[Iterable[int]], int],
        options: dict,
        label: str,
    ) -> int:
        by_researcher = kept in (ResearcherSummary, ResearcherWorks, ResearcherPage)
        records = (Author if by_researcher else Work).objects.visible().order_by("pk")
        if not options["all"]:
            current = kept.objects.filter(generation=generation)
            records = records.exclude(pk__in=current.values("pk"))
        number, parts = options["part"]
        if parts > 1:
            records = records.alias(part=F("pk") % parts).filter(part=number - 1)
        drawn, last = 0, 0
        while True:
            ids = list(records.filter(pk__gt=last).values_list("pk", flat=True)[:BATCH])
            if not ids:
                return drawn
            drawn += refresh(ids)
            last = ids[-1]
            if options["verbosity"] > 1:
                self.stdout.write(f"{drawn} {label} drawn, up to record {last}")


def _part(value: str) -> tuple[int, int]:
    """``K/N`` as (K, N), with 1 <= K <= N."""
    number, _, parts = value.partition("/")
    try:
        number, parts = int(number), int(parts)
    except ValueError:
        raise CommandError(f"--part takes K/N, such as 1/2, not {value!r}") from None
    if not 1 <= number <= parts:
        raise CommandError(f"--part K/N needs 1 <= K <= N, not {value!r}")
    return number, parts

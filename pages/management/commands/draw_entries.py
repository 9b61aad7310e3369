"""Draw and keep what work lists and work pages show of each work: its list entry
(``pages.entries``), its "More like this" list (``pages.similar``) and its page's
summary (``pages.summaries``); and of each researcher, its page's summary
(``pages.researcher_summaries``).

After a bulk load, or a change to a template: pages then read what is kept
instead of drawing it for their first visitors.

    python manage.py draw_entries            # works and researchers without a current drawing
    python manage.py draw_entries --all      # every one, drawn again
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.management.base import BaseCommand
from django.db.models import Model

from catalogue.models import Author, Work
from pages import entries, researcher_summaries, similar, summaries
from pages.models import ResearcherSummary, SimilarList, WorkEntry, WorkSummary

BATCH = 5_000


class Command(BaseCommand):
    help = "Draw and keep the list entries, similar lists and summaries of works and researchers."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="draw every one again")

    def handle(self, *args, **options) -> None:
        kinds = (
            ("entries", WorkEntry, entries.generation(), entries.entries_refresh),
            ("similar lists", SimilarList, similar.generation(), similar.lists_refresh),
            ("summaries", WorkSummary, summaries.generation(), summaries.summaries_refresh),
            (
                "researcher summaries",
                ResearcherSummary,
                researcher_summaries.generation(),
                researcher_summaries.summaries_refresh,
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
        records = (Author if kept is ResearcherSummary else Work).objects.visible().order_by("pk")
        if not options["all"]:
            current = kept.objects.filter(generation=generation)
            records = records.exclude(pk__in=current.values("pk"))
        drawn, last = 0, 0
        while True:
            ids = list(records.filter(pk__gt=last).values_list("pk", flat=True)[:BATCH])
            if not ids:
                return drawn
            drawn += refresh(ids)
            last = ids[-1]
            if options["verbosity"] > 1:
                self.stdout.write(f"{drawn} {label} drawn, up to record {last}")

"""Draw and keep the list entry of every listed work (``pages.entries``).

After a bulk load, or a change to the entry template: lists then read kept
entries instead of drawing them for their first visitors.

    python manage.py draw_entries            # works without a current entry
    python manage.py draw_entries --all      # every work, drawn again
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from catalogue.models import Work
from pages import entries
from pages.models import WorkEntry

BATCH = 5_000


class Command(BaseCommand):
    help = "Draw and keep the list entries of works (all, or those without a current one)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--all", action="store_true", help="draw every entry again")

    def handle(self, *args, **options) -> None:
        works = Work.objects.visible().order_by("pk")
        if not options["all"]:
            current = WorkEntry.objects.filter(generation=entries.generation())
            works = works.exclude(pk__in=current.values("work_id"))
        drawn, last = 0, 0
        while True:
            ids = list(works.filter(pk__gt=last).values_list("pk", flat=True)[:BATCH])
            if not ids:
                break
            drawn += entries.entries_refresh(ids)
            last = ids[-1]
            if options["verbosity"] > 1:
                self.stdout.write(f"{drawn} entries drawn, up to work {last}")
        self.stdout.write(f"{drawn} entries drawn")

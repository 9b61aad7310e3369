import time

from django.core.management.base import BaseCommand

from graph import edges


class Command(BaseCommand):
    help = "Recount every co-author edge from the authorships (the incremental update's reference)."

    def handle(self, *args, **options):
        started = time.monotonic()
        count = edges.edges_rebuild()
        took = time.monotonic() - started
        self.stdout.write(f"{count:,} co-author edges in {took:.1f} s")

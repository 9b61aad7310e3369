"""Write a synthetic OpenAlex snapshot (JSON Lines) for load tests; see publications.corpus."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from publications.corpus import default_path, write_corpus


class Command(BaseCommand):
    help = (
        "Write a deterministic synthetic corpus of fake works in OpenAlex snapshot format "
        "(one Work per line). Ids are in reserved ranges (W8…, A8…); names are made up."
    )

    def add_arguments(self, parser):
        parser.add_argument("--works", type=int, required=True, help="number of works (N)")
        parser.add_argument(
            "--authors", type=int, default=None, help="size of the author pool (default N/4)"
        )
        parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        parser.add_argument(
            "--out", type=Path, default=None, help="output file (default var/corpus/works-N.jsonl)"
        )
        parser.add_argument("--gzip", action="store_true", help="gzip the output")

    def handle(self, *args, works, authors, seed, out, gzip, **options):
        if works < 1:
            raise CommandError("--works must be at least 1")
        if authors is not None and authors < 1:
            raise CommandError("--authors must be at least 1")
        compress = gzip or (out is not None and out.suffix == ".gz")
        path = out or default_path(settings.BASE_DIR, works, compress)
        stats = write_corpus(path, works, n_authors=authors, seed=seed, compress=compress)
        self.stdout.write(stats.summary())

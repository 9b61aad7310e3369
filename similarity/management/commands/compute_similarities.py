import time

from django.core.management.base import BaseCommand

import similarity
from catalogue import novelty
from similarity import neighbours


class Command(BaseCommand):
    help = (
        'Recompute "More like this", prior similarity and Novelty for the whole corpus, '
        "each work against its nearest candidates (or only for the given work ids)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "work_ids", nargs="*", type=int, help="only these works (and lists they enter)"
        )

    def handle(self, *args, work_ids, **options):
        started = time.monotonic()
        corpus = similarity.load_corpus()
        self.stdout.write(
            f"Corpus: {len(corpus)} works, {corpus.text.shape[1]} terms, "
            f"{len(corpus.topic_ids)} topics, {len(corpus.author_ids)} authors "
            f"(loaded in {time.monotonic() - started:.1f} s); "
            f"up to {neighbours.FULL_BUILD_CANDIDATES} candidates per work."
        )
        if work_ids:
            outcome = similarity.similarities_update(work_ids=work_ids, corpus=corpus)
        else:
            outcome = similarity.similarities_compute_all(corpus=corpus, progress=self._progress)
        if outcome.priors_changed:
            authors = similarity.authors_of_works(outcome.priors_changed)
            novelty.author_novelty_refresh(author_ids=authors)
        self.stdout.write(f"{outcome} in {time.monotonic() - started:.1f} s.")

    def _progress(self, done: int, total: int) -> None:
        step = max(total // 20, 1)  # about every 5 %
        if done == total or done // step != getattr(self, "_last_step", -1):
            self._last_step = done // step
            self.stdout.write(f"  {done}/{total} works")

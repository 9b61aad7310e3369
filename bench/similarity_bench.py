""" "More like this", prior similarity and Novelty at scale (issue 21, target 5).

Uses a PostgreSQL database holding an imported corpus (default ``h_d_<N>``); with
``--build`` it creates it first from the generated corpus:

    .venv/bin/python -m devtools.corpus --works 100000 --out var/corpus/works-100000.jsonl
    .venv/bin/python bench/similarity_bench.py --works 100000 --build   # once
    .venv/bin/python bench/similarity_bench.py --works 100000
    .venv/bin/python bench/similarity_bench.py --works 100000 --only-update  # (b) alone

Then, in this process, it measures:

- (a) a full build: read the corpus, find candidates, score them, write every list;
- (b) an incremental update after 100 new works (copies of existing texts with
  new dates and the same authors), as an import batch's task runs it; the new
  works are deleted afterwards;
- (c) the peak memory (resident set) of the process during (a) and (b);
- (d) recall@5 of the lists against the exact all-pairs answer on a random
  sample of ``--sample`` works (both computed in memory on that sub-corpus), and
  on ``--queries`` works of the whole corpus against every work, for a full
  build's candidates and for an update's;
- (e) ``--batches`` import batches of 100 new works each, queued behind a busy
  worker, side by side: a refresh per batch, in turn (as when each batch's task
  carried its own works), and the one catch-up run that takes them all (the
  runs are timed, not the writing of the works).

    .venv/bin/python bench/similarity_bench.py --works 100000 --only-batches --batches 10
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Benchmarks run offline: an import looks up no institution in OpenAlex.
os.environ.setdefault("INSTITUTION_LOOKUP", "false")
TARGETS = {"full_100k_s": 120, "full_1m_s": 1800, "recall": 0.9}


def database_url(args) -> str:
    return f"{args.server}/{args.database or f'h_d_{args.works}'}"


def build(args) -> None:
    """Create the database and import the generated corpus into it."""
    url = database_url(args)
    name = url.rsplit("/", 1)[1]
    psql = ["psql", f"{args.server}/postgres", "-X", "-q", "-c"]
    subprocess.run([*psql, f"DROP DATABASE IF EXISTS {name}"], check=True)
    subprocess.run([*psql, f"CREATE DATABASE {name}"], check=True)
    corpus = ROOT / "var" / "corpus" / f"works-{args.works}.jsonl"
    if not corpus.exists():
        subprocess.run(
            [sys.executable, "-m", "devtools.corpus", "--works", str(args.works), "--out", corpus],
            check=True,
            cwd=ROOT,
        )
    env = {**os.environ, "DATABASE_URL": url}
    # A Redis database of its own, which no worker reads: the follow-up tasks of
    # the import (similarities among them) are queued, not run.
    env["REDIS_URL"] = args.redis
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], check=True, cwd=ROOT, env=env)
    subprocess.run([*manage, "import_file", str(corpus)], check=True, cwd=ROOT, env=env)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(label: str, fn):
    """Run ``fn``; print its wall and CPU time (CPU: this process, PostgreSQL apart)."""
    started, cpu = time.perf_counter(), cpu_s()
    result = fn()
    took = time.perf_counter() - started
    print(
        f"  {label}: {took:.1f} s wall, {cpu_s() - cpu:.1f} s CPU "
        f"(peak RSS so far {peak_mb():.0f} MB)",
        flush=True,
    )
    return result, took


def sub_corpus(corpus, rows):
    """The corpus restricted to ``rows`` (in memory)."""
    from similarity.corpus import Corpus

    return Corpus(
        ids=corpus.ids[rows],
        text=corpus.text[rows],
        topics=corpus.topics[rows],
        authors=corpus.authors[rows],
        topic_ids=corpus.topic_ids,
        author_ids=corpus.author_ids,
        start=corpus.start[rows],
        end=corpus.end[rows],
        has_text=corpus.has_text[rows],
        has_abstract=corpus.has_abstract[rows],
        prior=corpus.prior[rows].copy(),
        references=corpus.references[rows],
        citers=corpus.citers[rows],
    )


def exact_lists(corpus, rows):
    from similarity import exact

    lists, priors = {}, {}
    for scores in exact.score_chunks(corpus, rows):
        for i, row in enumerate(scores.rows.tolist()):
            lists[row] = [m.similar_row for m in exact.best_matches(scores, i)]
        priors.update(
            zip(scores.rows.tolist(), exact.prior_similarity(corpus, scores), strict=True)
        )
    return lists, priors


def approximate_lists(corpus, rows, neighbours):
    from similarity import candidates

    lists, priors = {}, {}
    for scores in candidates.score_candidates(corpus, rows, neighbours):
        for i, row in enumerate(scores.rows.tolist()):
            lists[row] = [m.similar_row for m in candidates.best_among(scores, i)]
        priors.update(
            zip(scores.rows.tolist(), candidates.prior_among(corpus, scores), strict=True)
        )
    return lists, priors


def compare(exact, approximate) -> tuple[float, float]:
    """recall@5 over all exact matches, and the share of priors within 0.01."""
    import numpy as np

    (lists, priors), (found, found_priors) = exact, approximate
    wanted = sum(len(v) for v in lists.values())
    hit = sum(len(set(v) & set(found[row])) for row, v in lists.items())
    close = [
        abs(priors[r] - found_priors[r]) <= 0.01
        or (np.isnan(priors[r]) and np.isnan(found_priors[r]))
        for r in priors
    ]
    return hit / max(wanted, 1), sum(close) / max(len(close), 1)


def new_works(count: int) -> list[int]:
    """``count`` new works copying existing texts and authors, dated today."""
    import datetime
    import random

    from catalogue.models import Authorship, Work

    rng = random.Random(11)
    ids = list(Work.objects.visible().values_list("id", flat=True))
    created = []
    for source in Work.objects.filter(id__in=rng.sample(ids, count)):
        authors = list(source.authorships.values_list("author_id", "position"))
        source.pk = source.id = None
        source.openalex_id = source.doi = source.arxiv_id = None
        source.title = f"{source.title} revisited"
        source.publication_date = datetime.date(2026, 1, 1)
        source.publication_year = 2026
        source.save()
        Authorship.objects.bulk_create(
            Authorship(work=source, author_id=a, position=p) for a, p in authors
        )
        created.append(source.pk)
    return created


def measure(args) -> None:
    import similarity

    print(f"Similarity benchmark on {database_url(args)}")
    if args.only_update or args.only_batches:
        if args.only_update:
            update()
        if args.only_batches:
            batches(args.batches)
        return
    corpus, load_s = timed("(a) load the corpus", similarity.load_corpus)
    n = len(corpus)
    print(f"  {n} works, {corpus.text.shape[1]} terms")
    if not args.only_recall:
        build_and_update(corpus, load_s)
    recall(corpus, args)


def build_and_update(corpus, load_s: float) -> None:
    import similarity

    n = len(corpus)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        print(f"    {done}/{total} works, {time.perf_counter() - started:.0f} s", flush=True)

    _, build_s = timed(
        "(a) full build",
        lambda: similarity.similarities_compute_all(corpus=corpus, progress=progress),
    )
    full = load_s + build_s
    target = TARGETS["full_1m_s"] if n > 500_000 else TARGETS["full_100k_s"]
    print(f"(a) full build of {n} works: {full:.1f} s   target < {target} s")

    update()
    print(f"(c) peak memory (RSS): {peak_mb():.0f} MB")


def update() -> None:
    """(b): 100 new works, then the refresh an import batch queues for them."""
    import similarity
    from catalogue.models import Work

    added = new_works(100)
    try:
        _, update_s = timed(
            "(b) update after 100 new works (with reading the corpus)",
            lambda: similarity.similarities_refresh(work_ids=added),
        )
        print(f"(b) incremental update, 100 new works: {update_s:.1f} s")
    finally:
        Work.objects.filter(id__in=added).delete()


def batches(count: int) -> None:
    """(e): ``count`` batches of 100 new works: a refresh each, then one catch-up for all."""
    import similarity
    from catalogue.models import SimilarityRequest, Work
    from similarity.backlog import backlog_ask

    left, _ = SimilarityRequest.objects.all().delete()
    if left:  # e.g. asked by the import that built the database: not part of the measure
        print(f"    ({left} requests left from before were dropped)")
    added, each_s = [], 0.0
    try:
        for _ in range(count):  # the works are written first, as an import batch commits
            batch = new_works(100)
            added += batch
            started = time.perf_counter()
            similarity.similarities_refresh(work_ids=batch)
            each_s += time.perf_counter() - started
        Work.objects.filter(id__in=added).delete()
        added = []
        for _ in range(count):
            batch = new_works(100)
            added += batch
            backlog_ask(work_ids=batch)
        started = time.perf_counter()
        outcome = similarity.similarities_catch_up()
        caught_s = time.perf_counter() - started
    finally:
        Work.objects.filter(id__in=added).delete()
    print(f"(e) {count} batches of 100 new works ({outcome.works} compared by the catch-up):")
    works = count * 100
    print(
        f"    a refresh per batch, in turn: {each_s:.1f} s ({each_s / works * 1000:.0f} ms a work)"
    )
    print(
        f"    one catch-up run for all:    {caught_s:.1f} s"
        f" ({caught_s / works * 1000:.0f} ms a work), {each_s / caught_s:.1f}x less"
    )


def recall_report(label: str, exact, corpus, rows, make_neighbours) -> None:
    """Time the approximate lists of ``rows`` and print their recall@5 against ``exact``."""
    approx, _ = timed(
        f"(d) approximate top-5, {label}",
        lambda: approximate_lists(corpus, rows, make_neighbours(corpus)),
    )
    share, priors = compare(exact, approx)
    print(f"(d) recall@5, {label}: {share:.3f}   target >= {TARGETS['recall']}")
    print(f"    prior similarity within 0.01 of exact: {priors:.3f}")


def recall(corpus, args) -> None:
    import numpy as np

    from similarity.neighbours import Neighbours, SparseNeighbours

    n = len(corpus)
    rng = np.random.default_rng(5)
    if args.sample:
        sample = np.sort(rng.choice(n, min(args.sample, n), replace=False))
        small = sub_corpus(corpus, sample)
        rows = np.arange(len(small))
        exact, _ = timed(
            f"(d) exact top-5 on a {len(small)} sample", lambda: exact_lists(small, rows)
        )
        recall_report(f"{len(small)} sampled works", exact, small, rows, Neighbours)
    if not args.queries:
        return
    queries = np.sort(rng.choice(n, min(args.queries, n), replace=False))
    exact, _ = timed(
        f"(d) exact top-5 of {len(queries)} works", lambda: exact_lists(corpus, queries)
    )
    label = f"{len(queries)} works of all {n}"
    recall_report(f"{label}, a full build's candidates", exact, corpus, queries, Neighbours)
    recall_report(f"{label}, an update's candidates", exact, corpus, queries, SparseNeighbours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=100_000)
    parser.add_argument("--database", help="default h_d_<works>")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--sample", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--build", action="store_true", help="create and import the database")
    parser.add_argument("--only-recall", action="store_true", help="measure (d) only")
    parser.add_argument(
        "--only-update", action="store_true", help="measure (b) only, on lists already built"
    )
    parser.add_argument("--only-batches", action="store_true", help="measure (e) only")
    parser.add_argument("--batches", type=int, default=10, help="import batches for (e)")
    args = parser.parse_args()
    if args.build:
        build(args)
    os.environ["DATABASE_URL"] = database_url(args)
    os.environ.pop("REDIS_URL", None)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    measure(args)


if __name__ == "__main__":
    main()

"""Server-side render times of the public pages on a 100k-work PostgreSQL corpus.

Builds the corpus once and reuses it on later runs:

1. ``bench/corpus.py`` writes a synthetic OpenAlex snapshot (var/corpus/pages-N.jsonl);
2. ``import_file`` imports it into its own database (default ``sp_bench_pages``),
   with follow-up tasks sent to a Redis database of their own and dropped there;
3. the compute steps that follow an import run for the whole corpus, each when its
   rows are missing (or with ``--recompute``): metrics for every author
   (``author_metrics_refresh``), ``compute_similarities`` ("More like this", prior
   similarity, Novelty) and ``recompute_trust``.

Then it measures, in this process with Django's test Client and DEBUG off, the
median time to render each page once warm: a researcher page of the author whose
work count is closest to 500 (plain, and sorted by citations with a year filter),
a work page, and searches. SQL query counts are reported too.

    .venv/bin/python bench/pages_bench.py               # build if needed, then measure
    .venv/bin/python bench/pages_bench.py --rebuild     # drop the database and start again
    .venv/bin/python bench/pages_bench.py --runs 50     # more timed requests per page
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGETS_MS = {"researcher": 50, "work": 30, "search": 100}


def sh(*args, env=None, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    if check and result.returncode:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"failed: {' '.join(map(str, args))}")
    return result


def bench_env(args) -> dict:
    env = {**os.environ, "DATABASE_URL": f"{args.server}/{args.database}"}
    env["REDIS_URL"] = args.redis
    # As production runs: DEBUG off (DEBUG also keeps every query in memory).
    env["DEBUG"] = "false"
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env["ALLOWED_HOSTS"] = "testserver,localhost"
    env["SECURE_SSL_REDIRECT"] = "false"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


def database_exists(args) -> bool:
    query = f"SELECT 1 FROM pg_database WHERE datname = '{args.database}'"
    return sh("psql", f"{args.server}/postgres", "-Atc", query).stdout.strip() == "1"


def count_rows(args, table: str) -> int:
    result = sh("psql", f"{args.server}/{args.database}", "-Atc",
                f"SELECT count(*) FROM {table}", check=False)  # fmt: skip
    return int(result.stdout.strip()) if result.returncode == 0 else 0


def step(label: str, *command, env) -> None:
    started = time.perf_counter()
    print(f"- {label} ...", end="", flush=True)
    sh(*command, env=env)
    print(f" {time.perf_counter() - started:.0f} s", flush=True)


COMPUTE_METRICS = """
from publications.metrics import author_metrics_refresh
from publications.models import Author
ids = list(Author.objects.visible().order_by("id").values_list("id", flat=True))
for start in range(0, len(ids), 500):
    author_metrics_refresh(author_ids=ids[start:start + 500])
print(len(ids))
"""


def build(args, env) -> None:
    corpus = ROOT / "var" / "corpus" / f"pages-{args.works}.jsonl"
    if not corpus.exists():
        step(f"generate {args.works:,} works", PYTHON, "-m", "bench.corpus",
             "--works", str(args.works), "--out", str(corpus), env=env)  # fmt: skip
    if args.rebuild and database_exists(args):
        sh("psql", f"{args.server}/postgres", "-qc", f"DROP DATABASE {args.database}")
    if not database_exists(args):
        sh("psql", f"{args.server}/postgres", "-qc", f"CREATE DATABASE {args.database}")
    step("migrate", PYTHON, "manage.py", "migrate", "-v0", env=env)
    if count_rows(args, "publications_work") < args.works * 0.99:
        step("import_file", PYTHON, "manage.py", "import_file", str(corpus), env=env)
        # Follow-up tasks went to the benchmark's Redis database; the compute steps below
        # do their work for the whole corpus at once.
        sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
        args.recompute = True
    # What the follow-up tasks compute after an import, each run when its rows are missing.
    computes = [
        ("metrics for every author", "publications_authormetrics",
         ["shell", "-c", COMPUTE_METRICS]),
        ("compute_similarities", "publications_worksimilarity", ["compute_similarities"]),
        ("recompute_trust", "trust_trustscore", ["recompute_trust"]),
    ]  # fmt: skip
    for label, table, command in computes:
        if command[0] != "shell" and not list(ROOT.glob(f"*/management/commands/{command[0]}.py")):
            print(f"- {label}: no such command here, skipped")
            continue
        if args.recompute or count_rows(args, table) == 0:
            step(label, PYTHON, "manage.py", *command, env=env)
    # Planner statistics, as autovacuum gathers them some time after a bulk load; without
    # them PostgreSQL guesses row counts and an author's works are read by scanning all works.
    step("analyze", "psql", f"{args.server}/{args.database}", "-qc", "ANALYZE", env=env)


def measure(client, url: str, runs: int) -> dict:
    """Warm timings of one page: wall and this process's CPU, in ms; queries; status."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm: templates compiled, connection open, caches filled
        client.get(url)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    queries = len(captured)  # read now: the next request's end clears the query log
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        client.get(url)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    wall.sort()
    return {
        "median": statistics.median(wall),
        "p90": wall[max(int(len(wall) * 0.9) - 1, 0)],
        "cpu": statistics.median(cpu),
        "queries": queries,
        "status": response.status_code,
    }


def pages(args) -> list[tuple[str, str, str]]:
    """The pages to time: (kind, label, url)."""
    from django.db.models import Count, F, Func

    from publications.models import AuthorMetrics, Work

    metrics = (
        AuthorMetrics.objects.filter(works_count__gte=1)
        .annotate(distance=Func(F("works_count") - args.author_works, function="ABS"))
        .order_by("distance", "author_id")
        .select_related("author")
        .first()
    )
    author = metrics.author
    work = (
        Work.objects.visible()
        .filter(authorships__author=author, similar_links__isnull=False)
        .annotate(n=Count("authorships", distinct=True))
        .order_by("-n", "id")
        .first()
    ) or Work.objects.visible().filter(authorships__author=author).first()
    word = max(work.title.split(), key=len).strip(".,:;")
    surname = author.display_name.split()[-1]
    first_year = metrics.first_year or 2000
    page = author.get_absolute_url()
    since = first_year + 5
    return [
        ("researcher", f"researcher page, {metrics.works_count} works", page),
        ("researcher", "  by citations, from a year", f"{page}?sort=cited&year_from={since}"),
        ("researcher", "  page 5, sorted by title", f"{page}?sort=title&page=5"),
        ("work", f"work page, {work.authorships.count()} authors", work.get_absolute_url()),
        ("search", f"search: one title word ({word})", f"/search/?q={word}"),
        ("search", f"search: a name ({surname})", f"/search/?q={surname}"),
        ("search", "search: two words", f"/search/?q={word}+{surname}"),
        ("search", "  filtered by year and type", f"/search/?q={word}&year_from=2015&type=article"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=100_000, help="corpus size (100,000)")
    parser.add_argument("--author-works", type=int, default=500, help="researcher page size")
    parser.add_argument("--runs", type=int, default=30, help="timed requests per page (30)")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="sp_bench_pages")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--rebuild", action="store_true", help="drop and rebuild the database")
    parser.add_argument("--recompute", action="store_true", help="run the compute steps again")
    parser.add_argument("--skip-build", action="store_true", help="measure the database as is")
    args = parser.parse_args()

    env = bench_env(args)
    if not args.skip_build:
        build(args, env)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    warnings.filterwarnings("ignore", message="No directory at")  # no collectstatic here
    django.setup()
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    from publications.models import Work

    assert not settings.DEBUG
    # Static URLs without a collectstatic manifest; the lookup cost is the same.
    storages = {**settings.STORAGES}
    storages["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    with override_settings(STORAGES=storages):
        client = Client()
        print(f"\n{Work.objects.count():,} works in {args.database}; {args.runs} warm runs each.")
        print(f"{'page':<44} {'median':>7} {'p90':>7} {'cpu':>6} {'queries':>7} {'target':>7}")
        for kind, label, url in pages(args):
            result = measure(client, url, args.runs)
            target = TARGETS_MS[kind]
            verdict = "ok" if result["median"] < target else "SLOW"
            note = "" if result["status"] == 200 else f"  (HTTP {result['status']})"
            print(f"{label[:44]:<44} {result['median']:>7.1f} {result['p90']:>7.1f} "
                  f"{result['cpu']:>6.1f} {result['queries']:>7} {'<' + str(target):>5} ms "
                  f"{verdict}{note}", flush=True)  # fmt: skip
        print(
            "median and p90: wall time per request; cpu: this process's CPU time (the "
            "Django side, without PostgreSQL's own time); all in ms"
        )
    print(f"\nload: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()

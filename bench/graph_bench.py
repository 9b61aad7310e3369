"""Research graph speed on a generated PostgreSQL corpus (default 1,000,000 works).

Builds its own database once (``sp_bench_graph``) and reuses it on later runs:
authors grouped in labs of 20, each work written by its lab's head, one to five
lab members and now and then someone from elsewhere; productive labs are rare
(a squared uniform draw), so the head of the busiest lab is a well-connected
researcher with thousands of works and co-authors. Works and authorships are
written in SQL (this measures the graph, not the importer), then
``rebuild_graph`` recounts every co-author edge.

Then, in this process with DEBUG off and the Redis cache, it measures:

- the neighbourhood of the best-connected researcher (slice and explorer limits),
- drawing a neighbourhood of at least 150 nodes as SVG,
- serving the cached slice through Django's test client,
- the incremental edge update after a batch of 1,000 new works (what the
  ``graph.tasks.update_edges`` task runs after an import batch).

    .venv/bin/python bench/graph_bench.py                    # 1M works, build if needed
    .venv/bin/python bench/graph_bench.py --works 300000     # a smaller corpus
    .venv/bin/python bench/graph_bench.py --rebuild          # drop the database first
    .venv/bin/python bench/graph_bench.py --time-rebuild-graph   # also time a full recount
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Benchmarks run offline: an import looks up no institution in OpenAlex.
os.environ.setdefault("INSTITUTION_LOOKUP", "false")
LAB_SIZE = 20
AUTHORS_PER_WORK = 0.3  # authors created per work
TARGETS_MS = {"neighbourhood": 100, "svg": 100, "cached": 10, "update": 1000}


def psql(args, sql: str, database: str = "postgres") -> str:
    result = subprocess.run(
        ["psql", f"{args.server}/{database}", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1"],
        input=sql,
        capture_output=True,
        text=True,
    )
    if result.returncode:
        raise SystemExit(result.stderr)
    return result.stdout.strip()


def env_for(args) -> dict:
    env = {**os.environ, "DATABASE_URL": f"{args.server}/{args.database}", "REDIS_URL": args.redis}
    env["DEBUG"] = "false"
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env["ALLOWED_HOSTS"] = "testserver,localhost"
    env["SECURE_SSL_REDIRECT"] = "false"
    return env


def step(label: str, fn):
    print(f"- {label} ...", end=" ", flush=True)
    started = time.perf_counter()
    result = fn()
    print(f"{time.perf_counter() - started:.1f} s", flush=True)
    return result


def works_sql(first: int, count: int, labs: int, author_base: int) -> str:
    """Works ``first`` .. ``first + count - 1`` and their authorships, in one transaction."""
    return f"""
ALTER TABLE publications_work DISABLE TRIGGER USER;
BEGIN;
INSERT INTO publications_work (id, created_at, updated_at, title, normalized_title, abstract,
    type, language, journal_ref, arxiv_primary_category, comments, code_url, pdf_url,
    landing_url, license, is_retracted, counts_by_year, first_author_surname, provenance,
    publication_year)
SELECT g, now(), now(), 'Generated work ' || g, 'generated work ' || g, '', 'article', 'en',
    '', '', '', '', '', '', '', false, '[]', '', '{{}}', 1990 + (g % 36)
FROM generate_series({first}, {first + count - 1}) g;
WITH w AS (
    SELECT g AS id, floor({labs} * power(random(), 2))::int AS lab,
           1 + floor(random() * 5)::int AS members, random() < 0.2 AS outsider
    FROM generate_series({first}, {first + count - 1}) g
), people AS (
    SELECT w.id AS work_id, {author_base} + w.lab * {LAB_SIZE} AS author_id, 0 AS position
    FROM w
    UNION ALL
    SELECT w.id, {author_base} + w.lab * {LAB_SIZE} + 1 + floor(random() * {LAB_SIZE - 1})::int,
           j
    FROM w, generate_series(1, w.members) j
    UNION ALL
    SELECT w.id, {author_base} + floor(random() * {labs * LAB_SIZE})::int, 9
    FROM w WHERE w.outsider
)
INSERT INTO publications_authorship (position, raw_name, raw_affiliation, is_corresponding,
    source, confidence, author_id, work_id)
SELECT min(position), '', '', false, 'openalex', 1.0, author_id, work_id
FROM people GROUP BY work_id, author_id;
COMMIT;
ALTER TABLE publications_work ENABLE TRIGGER USER;
"""


def build(args) -> None:
    exists = psql(args, f"SELECT 1 FROM pg_database WHERE datname = '{args.database}'")
    if exists and args.rebuild:
        psql(args, f"DROP DATABASE {args.database}")
        exists = ""
    if not exists:
        psql(args, f"CREATE DATABASE {args.database}")
    env = env_for(args)
    step(
        "migrate",
        lambda: subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
        ),
    )
    have = int(psql(args, "SELECT count(*) FROM publications_work", args.database) or 0)
    if have >= args.works:
        print(f"- reusing {have:,} works in {args.database}")
        return
    if have:
        raise SystemExit(f"{args.database} holds {have:,} works; use --rebuild for {args.works:,}")
    authors = int(args.works * AUTHORS_PER_WORK) // LAB_SIZE * LAB_SIZE
    labs = authors // LAB_SIZE
    step(
        f"{authors:,} authors",
        lambda: psql(
            args,
            f"""
ALTER TABLE publications_author DISABLE TRIGGER USER;
INSERT INTO publications_author (id, created_at, updated_at, display_name, normalized_name,
    alternative_names, is_deleted)
SELECT g, now(), now(), 'Researcher ' || g, 'researcher ' || g, '[]', false
FROM generate_series(1, {authors}) g;
ALTER TABLE publications_author ENABLE TRIGGER USER;
SELECT setval(pg_get_serial_sequence('publications_author', 'id'), {authors});
""",
            args.database,
        ),
    )
    chunk = 100_000
    for first in range(1, args.works + 1, chunk):
        count = min(chunk, args.works - first + 1)
        step(
            f"works {first:,}-{first + count - 1:,} with authorships",
            lambda first=first, count=count: psql(
                args, works_sql(first, count, labs, 1), args.database
            ),
        )
    psql(
        args,
        f"SELECT setval(pg_get_serial_sequence('publications_work', 'id'), {args.works});"
        "VACUUM ANALYZE publications_work; VACUUM ANALYZE publications_authorship;"
        "VACUUM ANALYZE publications_author;",
        args.database,
    )
    step(
        "rebuild_graph",
        lambda: subprocess.run(
            [sys.executable, "manage.py", "rebuild_graph"], cwd=ROOT, env=env, check=True
        ),
    )
    psql(args, "VACUUM ANALYZE graph_coauthoredge, graph_countedauthorship;", args.database)


def timed(fn, runs: int) -> tuple[float, float]:
    fn()  # warm
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9) - 1]


def measure(args) -> list[tuple]:
    os.environ.update(env_for(args))
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from catalogue.models import Authorship
    from graph import neighbourhood, services, svg
    from graph.models import CoauthorEdge

    lab_head = (
        Authorship.objects.filter(position=0)
        .values("author_id")
        .annotate(works=Count("id"))
        .order_by("-works")
        .first()
    )
    author = services.author_for_graph(lab_head["author_id"])
    degree = CoauthorEdge.objects.filter(author_low_id=author.pk).count()
    degree += CoauthorEdge.objects.filter(author_high_id=author.pk).count()
    rows = []
    print(
        f"\nresearcher {author.pk}: {lab_head['works']:,} works, {degree:,} co-authors; "
        f"{CoauthorEdge.objects.count():,} edges in all"
    )

    for label, limits in (("slice", neighbourhood.SLICE), ("explorer", neighbourhood.EXPLORER)):
        with CaptureQueriesContext(connection) as queries:
            hood = neighbourhood.build(author, limits=limits)
        median, p90 = timed(
            lambda limits=limits: neighbourhood.build(author, limits=limits), args.runs
        )
        rows.append(
            (
                f"neighbourhood ({label}, {len(hood.nodes)} nodes, {len(queries)} queries)",
                median,
                p90,
                "neighbourhood",
            )
        )

    big_limits = neighbourhood.Limits(
        collaborators=130,
        links_among=200,
        second_hop_from=12,
        second_hop_each=6,
        topics=10,
        papers=15,
        institutions=15,
    )
    big = neighbourhood.build(author, limits=big_limits)
    median, p90 = timed(lambda: str(svg.draw(big, size=900, labels=22)), args.runs)
    rows.append((f"SVG of {len(big.nodes)} nodes, {len(big.edges)} edges", median, p90, "svg"))
    median, p90 = timed(lambda: neighbourhood.layout(big), args.runs)
    rows.append((f"  layout alone ({len(big.nodes)} nodes)", median, p90, "svg"))

    client = Client()
    url = f"/researchers/{author.pk}/graph/slice/"
    services.slice_build(author.pk)
    assert client.get(url).status_code == 200
    median, p90 = timed(lambda: client.get(url), args.runs * 3)
    rows.append(("cached slice served (Redis cache)", median, p90, "cached"))

    from django.db import connection as conn

    def one_batch():
        with conn.cursor() as cursor:
            cursor.execute("SELECT max(id) FROM publications_work")
            first = cursor.fetchone()[0] + 1
        labs = int(args.works * AUTHORS_PER_WORK) // LAB_SIZE
        psql(args, works_sql(first, 1000, labs, 1), args.database)
        touched = list(
            Authorship.objects.filter(work_id__gte=first).values_list("author_id", flat=True)
        )
        started = time.perf_counter()
        # What an import batch sends: its authors and the works it wrote.
        written = services.edges_update(touched, range(first, first + 1000))
        took = (time.perf_counter() - started) * 1000
        return took, len(set(touched)), written

    updates = [one_batch() for _ in range(args.batches)]
    took = sorted(u[0] for u in updates)
    rows.append(
        (
            f"edge update after 1,000 works ({updates[0][1]:,} authors, "
            f"{updates[0][2]:,} edges rewritten)",
            statistics.median(took),
            took[-1],
            "update",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--batches", type=int, default=5, help="incremental batches measured")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="sp_bench_graph")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--time-rebuild-graph",
        action="store_true",
        help="also time manage.py rebuild_graph on the corpus (a full recount)",
    )
    args = parser.parse_args()
    build(args)
    rebuild_s = None
    if args.time_rebuild_graph:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "manage.py", "rebuild_graph"], cwd=ROOT, env=env_for(args), check=True
        )
        rebuild_s = time.perf_counter() - started
        psql(args, "VACUUM ANALYZE graph_coauthoredge, graph_countedauthorship;", args.database)
    rows = measure(args)
    load = os.getloadavg()
    print(f"\n{'':62} {'median':>8} {'p90/max':>8}  target")
    for label, median, p90, kind in rows:
        target = TARGETS_MS[kind]
        verdict = "ok" if median < target else "SLOW"
        print(f"{label:62} {median:8.1f} {p90:8.1f}  <{target} ms {verdict}")
    print("times in ms (p90 for repeated reads, max for the batches)")
    if rebuild_s is not None:
        print(f"rebuild_graph (full recount, whole corpus): {rebuild_s:.1f} s")
    print(f"load: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()

"""Trust score recomputation time and peak memory on PostgreSQL.

For each size, a fresh database is migrated and filled with bulk SQL (not the
importer, which has its own benchmark): authors with OpenAlex ids, a quarter
with an ORCID, half with an institution; about 2.5 works per author with three
authors each, most with a venue and a citation count, a third also on arXiv,
a few retracted; users who follow authors, approved, pending and disputed
claims, and upheld misattribution reports. Then ``manage.py recompute_trust``
scores every author in a child process, twice: first with nothing stored (every
author gets a history row), then again with nothing changed. The child's wall
time and peak resident memory are reported.

    .venv/bin/python bench/trust_bench.py --authors 10000 100000

Needs a PostgreSQL server (``--server``); the benchmark database (``--database``)
is dropped and created again for every size.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
# Benchmarks run offline: an import looks up no institution in OpenAlex.
os.environ.setdefault("INSTITUTION_LOOKUP", "false")
PYTHON = sys.executable


def sh(*args, env=None, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, env=env, check=check, capture_output=True, text=True)


def fresh_database(server: str, name: str) -> str:
    sh("psql", f"{server}/postgres", "-qc", f"DROP DATABASE IF EXISTS {name}")
    sh("psql", f"{server}/postgres", "-qc", f"CREATE DATABASE {name}")
    return f"{server}/{name}"


# Filling the database ---------------------------------------------------------------------

FILLERS = {  # a value for every NOT NULL column a statement below does not name
    "text": "''",
    "character varying": "''",
    "boolean": "false",
    "integer": "0",
    "bigint": "0",
    "smallint": "0",
    "double precision": "0",
    "jsonb": "'[]'::jsonb",
    "json": "'[]'::json",
    "timestamp with time zone": "now()",
    "date": "current_date",
}


def insert(cur, table: str, values: dict[str, str], source: str) -> None:
    """INSERT ... SELECT with ``values`` (column -> SQL expression) over ``source``.

    Columns Django fills from model defaults have no database default; they get
    a neutral value of their type, so the schema can change without this script.
    """
    cur.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s "
        "AND is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO'",
        [table],
    )
    columns = dict(values)
    for name, kind in cur.fetchall():
        if name not in columns and name != "id":
            columns[name] = FILLERS[kind]
    names = ", ".join(columns)
    cur.execute(f"INSERT INTO {table} ({names}) SELECT {', '.join(columns.values())} {source}")


def fill(url: str, authors: int) -> dict:
    works = authors * 5 // 2
    users = max(authors // 20, 100)
    with psycopg.connect(url, autocommit=False) as conn, conn.cursor() as cur:
        insert(
            cur,
            "publications_institution",
            {
                "name": "'Institute ' || i",
                "homepage_domain": "'inst' || i || '.example.edu'",
            },
            "FROM generate_series(1, 1000) i",
        )
        insert(
            cur,
            "publications_venue",
            {"name": "'Journal ' || i"},
            "FROM generate_series(1, 2000) i",
        )
        insert(
            cur,
            "publications_author",
            {
                "id": "i",
                "display_name": "'Author ' || i",
                "normalized_name": "'author ' || i",
                "alternative_names": "'[]'::jsonb",
                "openalex_id": "'A' || (1000000 + i)",
                "orcid": "CASE WHEN i % 4 = 0 THEN '0000-0001-' || lpad((i / 10000)::text, 4, '0') "
                "|| '-' || lpad((i % 10000)::text, 4, '0') END",
                "last_known_institution_id": "CASE WHEN i % 2 = 0 THEN 1 + i % 1000 END",
            },
            f"FROM generate_series(1, {authors}) i",
        )
        insert(
            cur,
            "publications_work",
            {
                "id": "w",
                "title": "'Work ' || w",
                "normalized_title": "'work ' || w",
                "publication_year": "1995 + w % 32",
                "venue_id": "CASE WHEN w % 5 <> 0 THEN 1 + w % 2000 END",
                "cited_by_count": "CASE WHEN w % 10 <> 0 THEN (w * 37) % 500 END",
                "openalex_id": "'W' || w",
                "arxiv_id": "CASE WHEN w % 3 = 0 THEN '2101.' || w END",
                "is_retracted": "w % 997 = 0",
                "type": "'article'",
                "provenance": "'{}'::jsonb",
                "counts_by_year": "'[]'::jsonb",
            },
            f"FROM generate_series(1, {works}) w",
        )
        # Three authors per work, spread so every author has about 7.5 works.
        insert(
            cur,
            "publications_authorship",
            {
                "work_id": "w",
                "author_id": f"1 + (w * 7 + k * 7919) % {authors}",
                "position": "k",
                "source": "'openalex'",
                "confidence": "1.0",
            },
            f"FROM generate_series(1, {works}) w, generate_series(0, 2) k",
        )
        insert(
            cur,
            "auth_user",
            {
                "id": "u",
                "username": "'user' || u",
                "password": "'!'",
                "email": "'u' || u || '@x.org'",
                "is_active": "true",
                "date_joined": "now()",
            },
            f"FROM generate_series(1, {users}) u",
        )
        insert(
            cur,
            "profiles_follow",
            {
                "user_id": "u",
                "author_id": f"1 + (u * 13 + f * 101) % {authors}",
                "created_at": "now()",
            },
            f"FROM generate_series(1, {users}) u, generate_series(0, 9) f",
        )
        claims = users // 2
        insert(
            cur,
            "profiles_claim",
            {
                "user_id": "u",
                "author_id": "u * 2",
                "status": f"CASE WHEN u <= {claims * 8 // 10} THEN 'approved' "
                f"WHEN u <= {claims * 9 // 10} THEN 'pending' ELSE 'disputed' END",
                "method": "CASE WHEN u % 3 = 0 THEN 'evidence' ELSE 'orcid' END",
                "evidence_links": "'[]'::jsonb",
                "created_at": "now()",
            },
            f"FROM generate_series(1, {claims}) u",
        )
        cur.execute(
            "UPDATE profiles_claim SET reviewer_id = 1 WHERE method = 'evidence' "
            "AND status = 'approved'"
        )
        insert(
            cur,
            "profiles_report",
            {
                "reporter_id": "1",
                "kind": "'misattribution'",
                "author_id": "a.author_id",
                "work_id": "a.work_id",
                "reason": "'not theirs'",
                "status": "'upheld'",
                "created_at": "now()",
                "handled_at": "now()",
            },
            "FROM publications_authorship a WHERE a.work_id % 500 = 1 AND a.position = 0",
        )
        for table in ("publications_author", "publications_work", "auth_user"):
            cur.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
        conn.commit()
        conn.autocommit = True
        cur.execute("VACUUM ANALYZE")
        cur.execute("SELECT count(*) FROM publications_authorship")
        return {"works": works, "authorships": cur.fetchone()[0], "users": users}


# Measuring -----------------------------------------------------------------------------------

# Runs the command in this child and reports the child's own peak RSS when it exits.
LAUNCHER = """
import atexit, resource, runpy, sys
atexit.register(lambda: print("PEAK_RSS_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
sys.argv = ["manage.py", "recompute_trust", "--reason", "benchmark"]
runpy.run_path("manage.py", run_name="__main__")
"""


def timed_recompute(env: dict) -> tuple[float, int, str]:
    started = time.perf_counter()
    result = sh(PYTHON, "-c", LAUNCHER, env=env)
    seconds = time.perf_counter() - started
    lines = result.stdout.splitlines()
    summary = next(line for line in lines if line.startswith("Recomputed"))
    peak = int(next(line for line in lines if line.startswith("PEAK_RSS_KB")).split()[1])
    return seconds, peak, summary


def run(authors: int, args) -> None:
    url = fresh_database(args.server, args.database)
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "false"}
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env.pop("REDIS_URL", None)  # nothing is queued: the command computes in its own process
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    sh(PYTHON, "manage.py", "migrate", "-v0", env=env)
    started = time.perf_counter()
    sizes = fill(url, authors)
    filled = time.perf_counter() - started
    print(
        f"  {authors:,} authors, {sizes['works']:,} works, {sizes['authorships']:,} "
        f"authorships, {sizes['users']:,} users filled in {filled:.0f} s",
        flush=True,
    )
    for label in ("first", "again"):
        seconds, peak, summary = timed_recompute(env)
        print(
            f"{authors:>8} {label:>6} {seconds:>8.1f} {authors / seconds:>9.0f}"
            f" {peak / 1024:>8.0f}MB   {summary}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="sp_bench_trust")
    args = parser.parse_args()
    print(f"{'authors':>8} {'pass':>6} {'seconds':>8} {'authors/s':>9} {'peak RSS':>10}")
    for authors in sorted(args.authors):
        run(authors, args)


if __name__ == "__main__":
    main()

"""Our import beside the OpenAlex-documented snapshot → PostgreSQL path, on one file.

The documented path (github.com/ourresearch/openalex-documentation-scripts) flattens
the snapshot's JSON lines into gzipped CSV files (``flatten-openalex-jsonl.py``),
creates plain tables without keys or indexes (``openalex-pg-schema.sql``) and loads
them with ``\\copy`` (``copy-openalex-csv.sql``). Its code is not part of this
project; fetch it yourself and pass its directory::

    git clone https://github.com/ourresearch/openalex-documentation-scripts ../openalex-docs
    .venv/bin/python -m bench.import_baseline --baseline-dir ../openalex-docs

(or set ``OPENALEX_DOCS_DIR``). The flattening script expects ``concepts``, ``mesh``,
``referenced_works`` and other lists on every work and stops with a TypeError on a
work without them, as in our generated corpus; the benchmark runs a copy of it, in
its working directory, with ``or []`` added to those look-ups and nothing else.

On the same gzipped file (``devtools/corpus.py``, ``--works`` records, written once and
not timed) it times, one after the other on the same PostgreSQL server:

- the baseline: flatten + create the schema + COPY, in a fresh database;
- our fresh import: ``manage.py import_file`` into a freshly migrated database
  (migrating is not timed);
- our import of the same file again, every record unchanged;

and the peak resident memory (RSS) of each import's largest process. Each figure is
printed beside its target (issue 21, target 6).
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.import_bench import ROOT, corpus, fresh_database, sh, timed_import

PYTHON = sys.executable
FLATTEN = "flatten-openalex-jsonl.py"
SCHEMA = "openalex-pg-schema.sql"
COPY = "copy-openalex-csv.sql"
# The look-ups the flattening script makes on lists a work may lack: each gets ``or []``.
MISSING_LISTS = (
    ("work.get('topics', [])", "(work.get('topics') or [])"),
    ("work.get('concepts')", "(work.get('concepts') or [])"),
    ("work.get('mesh')", "(work.get('mesh') or [])"),
    ("work.get('referenced_works')", "(work.get('referenced_works') or [])"),
    ("work.get('related_works')", "(work.get('related_works') or [])"),
    ("authorship.get('institutions')", "(authorship.get('institutions') or [])"),
)
FRESH_TARGET = 1.0  # our fresh import / the baseline, in works per second
UNCHANGED_TARGET = 20_000  # works per second


def patched_flatten(source: Path, into: Path) -> Path:
    """A copy of the flattening script with ``or []`` on the list look-ups, nothing else."""
    text = (source / FLATTEN).read_text()
    for old, new in MISSING_LISTS:
        if old not in text:
            raise SystemExit(f"{FLATTEN}: {old!r} not found; has the script changed?")
        text = text.replace(old, new)
    target = into / FLATTEN
    target.write_text(text)
    return target


def snapshot(works: int, workdir: Path) -> Path:
    """The corpus as a gzipped snapshot part, where the flattening script looks for works."""
    folder = workdir / "openalex-snapshot" / "data" / "works" / "updated_date=2025-06-10"
    target = folder / "part_000.gz"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with corpus(works).open("rb") as plain, gzip.open(target, "wb", compresslevel=1) as packed:
        shutil.copyfileobj(plain, packed, 1 << 20)
    return target


def timed(args: list[str], cwd: Path, env: dict | None = None) -> tuple[float, int]:
    """Run a command; its seconds and its peak RSS (KiB, the largest of it and its children)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, args, stderr=child.stderr.read())
    return seconds, usage.ru_maxrss


def baseline(args, workdir: Path) -> dict:
    """Flatten, create the schema, COPY: seconds for each, and the flattening's peak RSS."""
    shutil.rmtree(workdir / "csv-files", ignore_errors=True)
    script = patched_flatten(args.baseline_dir, workdir)
    url = fresh_database(args.server, f"{args.database}_baseline")
    flatten, rss = timed([PYTHON, str(script)], workdir)
    psql = ["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-f"]
    schema, _ = timed([*psql, str(args.baseline_dir / SCHEMA)], workdir)
    copy, _ = timed([*psql, str(args.baseline_dir / COPY)], workdir)
    return {"flatten": flatten, "schema": schema, "copy": copy, "rss": rss}


def ours(args, path: Path) -> dict:
    env = {**os.environ, "DATABASE_URL": fresh_database(args.server, f"{args.database}_ours")}
    env["REDIS_URL"] = args.redis
    env["DEBUG"] = "false"  # as a production worker runs
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    sh(PYTHON, "manage.py", "migrate", "-v0", env=env)
    fresh = timed_import(path, env)
    again = timed_import(path, env)
    sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)  # our own db number
    return {"fresh": fresh, "again": again}


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report(works: int, base: dict, mine: dict) -> None:
    base_s = base["flatten"] + base["schema"] + base["copy"]
    (fresh_s, fresh_rss, fresh_all, _), (again_s, again_rss, _, _) = mine["fresh"], mine["again"]
    ratio = (works / fresh_s) / (works / base_s)
    print(f"works: {works:,}")
    print(
        f"baseline (flatten {base['flatten']:.1f} s + schema {base['schema']:.1f} s"
        f" + COPY {base['copy']:.1f} s): {base_s:.1f} s, {works / base_s:,.0f} works/s,"
        f" flatten peak RSS {base['rss'] / 1024:.0f} MB"
    )
    print(f"ours, fresh import: {fresh_s:.1f} s, {works / fresh_s:,.0f} works/s")
    print(
        f"  fresh / baseline: {ratio:.2f}x   target >= {FRESH_TARGET:.1f}x   {verdict(ratio >= 1)}"
    )
    rate = works / again_s
    print(
        f"ours, unchanged re-import: {again_s:.1f} s, {rate:,.0f} works/s"
        f"   target >= {UNCHANGED_TARGET:,}/s   {verdict(rate >= UNCHANGED_TARGET)}"
    )
    print(
        f"ours, peak RSS of the largest process: fresh {fresh_rss / 1024:.0f} MB,"
        f" unchanged {again_rss / 1024:.0f} MB (all processes, PSS: {fresh_all / 1024:.0f} MB)"
        "   target: flat from 100k to 1M"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline-dir",
        type=Path,
        default=os.environ.get("OPENALEX_DOCS_DIR"),
        help="a checkout of ourresearch/openalex-documentation-scripts (or OPENALEX_DOCS_DIR)",
    )
    parser.add_argument("--works", nargs="+", type=int, default=[100_000])
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="bench_import", help="prefix of the two databases")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--workdir", type=Path, default=ROOT / "var" / "import-baseline")
    parser.add_argument("--skip-baseline", action="store_true", help="time ours alone")
    args = parser.parse_args()
    if not args.skip_baseline and not (
        args.baseline_dir and (args.baseline_dir / FLATTEN).is_file()
    ):
        parser.error("--baseline-dir (or OPENALEX_DOCS_DIR) must hold " + FLATTEN)
    for works in args.works:
        workdir = args.workdir / str(works)
        path = snapshot(works, workdir)
        before = os.getloadavg()[0]
        base = None if args.skip_baseline else baseline(args, workdir)
        if base:
            seconds = base["flatten"] + base["schema"] + base["copy"]
            print(f"baseline: {seconds:.1f} s, {works / seconds:,.0f} works/s", flush=True)
        try:
            mine = ours(args, path)
        except subprocess.CalledProcessError as exc:
            raise SystemExit(f"our import failed:\n{exc.stderr[-3000:]}") from None
        if base:
            report(works, base, mine)
        else:
            (fresh, rss, *_), (again, *_) = mine["fresh"], mine["again"]
            print(
                f"works: {works:,}  fresh {works / fresh:,.0f}/s  unchanged {works / again:,.0f}/s"
                f"  peak RSS {rss / 1024:.0f} MB"
            )
        print(
            f"load average (1 min) before/after: {before:.2f}/{os.getloadavg()[0]:.2f}", flush=True
        )
        shutil.rmtree(workdir / "csv-files", ignore_errors=True)


if __name__ == "__main__":
    main()

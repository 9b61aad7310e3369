"""One import taken by one Celery worker, then by two: do two finish sooner?

A large snapshot is written in parts (``IMPORT_PARTS``), each a Celery task that
any worker takes. For each worker count this benchmark creates a fresh,
migrated database, starts that many workers (``--pool=solo``: one task at a time
each, as one container with ``--concurrency 1``) on a Redis database of its own,
sends the run and waits for it to end. It reports the run's own time (started to
finished, as the run records it) and works per second, and the speed-up of two
workers over one, beside the target (issue 21, target 7: more than 1.0x).

    .venv/bin/python -m bench.import_workers --works 100000 --redis redis://127.0.0.1:6379/12

Needs PostgreSQL (``--server``) and Redis (``--redis``: a database number no one
else uses; it is emptied afterwards).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.import_bench import ROOT, corpus, fresh_database, sh

PYTHON = sys.executable
TARGET = 1.0  # two workers' speed over one: more than this

SEND = """
import sys
import django
django.setup()
from celery import current_app
from catalogue.models import ImportRun
run = ImportRun.objects.create(
    source="openalex", kind="file", parameters={"paths": [sys.argv[1]]},
    status=ImportRun.Status.QUEUED,
)
current_app.send_task("publications.tasks.import_run", args=[run.pk])
print(run.pk)
"""

STATE = """
import sys
import django
django.setup()
from catalogue.models import ImportRun
run = ImportRun.objects.get(pk=int(sys.argv[1]))
elapsed = (run.finished_at - run.started_at).total_seconds() if run.finished_at else 0
parts = len(run.cursor.get("parts") or [1]) if isinstance(run.cursor, dict) else 1
print(run.status, run.processed, elapsed, parts, run.error.replace(chr(10), " ")[:300])
"""


def environment(args, database: str) -> dict:
    env = {**os.environ, "DATABASE_URL": fresh_database(args.server, database)}
    env.update(
        REDIS_URL=args.redis,
        DEBUG="false",
        IMPORT_PARTS=str(args.parts),
        IMPORT_PARTS_MIN_BYTES="0",  # in parts whatever the snapshot's size
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


def start_workers(count: int, env: dict, logs: Path) -> list[subprocess.Popen]:
    workers = []
    for index in range(count):
        log = (logs / f"worker-{count}-{index}.log").open("w")
        workers.append(
            subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-Q",
                    "watch,imports,compute",
                    "--pool=solo",
                    "-n",
                    f"bench{index}@%h",
                    "--loglevel=WARNING",
                    "--without-heartbeat",
                    "--without-mingle",
                    "--without-gossip",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    return workers


def stop(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def timed_run(count: int, path: Path, args) -> tuple[str, int, float, float, int]:
    """(status, works, the run's own seconds, seconds from sending to the end seen, parts)."""
    env = environment(args, f"{args.database}_{count}")
    sh(PYTHON, "manage.py", "migrate", "-v0", env=env)
    sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
    workers = start_workers(count, env, args.logs)
    try:
        sent = time.perf_counter()
        run_id = sh(PYTHON, "-c", SEND, str(path), env=env).stdout.split()[-1]
        while True:
            time.sleep(args.poll)
            state = sh(PYTHON, "-c", STATE, run_id, env=env).stdout.split(maxsplit=4)
            status, processed, elapsed, parts, *error = state
            if status in {"succeeded", "failed", "cancelled"}:
                break
            if any(worker.poll() is not None for worker in workers):
                raise SystemExit(f"a worker stopped; see {args.logs}")
        seen = time.perf_counter() - sent
    finally:
        stop(workers)
        sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
    if status != "succeeded":
        print(f"{count} worker(s): the run {status}: {' '.join(error)}")
    return status, int(processed), float(elapsed), seen, int(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=100_000)
    parser.add_argument("--parts", type=int, default=4, help="IMPORT_PARTS (default 4)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="bench_import_workers")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between looks at the run")
    parser.add_argument("--logs", type=Path, default=ROOT / "var" / "import-workers")
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    path = corpus(args.works)
    rates = {}
    print(f"{args.works:,} works in {args.parts} parts")
    for count in args.workers:
        before = os.getloadavg()[0]
        status, processed, elapsed, seen, parts = timed_run(count, path, args)
        rates[count] = processed / elapsed if elapsed else 0.0
        print(
            f"{count} worker(s): {status}, {processed:,} works in {parts} parts,"
            f" {elapsed:.1f} s (run), {seen:.1f} s (sent to end): {rates[count]:,.0f} works/s"
            f"  load before/after {before:.2f}/{os.getloadavg()[0]:.2f}",
            flush=True,
        )
    if 1 in rates and 2 in rates and rates[1]:
        ratio = rates[2] / rates[1]
        verdict = "met" if ratio > TARGET else "MISSED"
        print(f"two workers / one: {ratio:.2f}x   target > {TARGET:.1f}x   {verdict}")


if __name__ == "__main__":
    main()

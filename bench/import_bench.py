"""Import throughput and peak memory on PostgreSQL.

Generates a synthetic OpenAlex snapshot (``devtools/corpus.py``), imports it into a
fresh database with ``manage.py import_file`` in a child process, imports it
again (every record unchanged), and reports works per second, memory and the
machine's load average (1 minute) before and after it, since other processes
share the CPU.

Memory, for each size, the larger of the two imports:

- ``peak RSS``: the peak resident memory of the largest single process (the
  import's, or one of the processes writing a part of a large snapshot:
  ``IMPORT_PARTS``), as the kernel counts it;
- ``peak all``: the peak of the memory of all the import's processes together,
  sampled every 0.5 s as their proportional set size (PSS: a page shared by two
  processes counts half in each), so it is what the worker as a whole holds.

    .venv/bin/python bench/import_bench.py --works 10000 100000
    .venv/bin/python bench/import_bench.py --works 100000 --parts 1 --summary  # one process

Needs a PostgreSQL server (``--server``, default the local one); the benchmark
database is dropped and created again for every size. Follow-up tasks go to a
Redis database of their own (``--redis``) and are purged afterwards, so what is
measured is the import itself.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

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


def corpus(works: int) -> Path:
    path = ROOT / "var" / "corpus" / f"works-{works}.jsonl"
    if not path.exists():
        sh(PYTHON, "-m", "devtools.corpus", "--works", str(works), "--out", str(path))
    return path


# Runs manage.py in this child and reports, when it exits, the peak RSS of the process
# that used the most: the child itself or one of the processes it started (the parts
# of a snapshot written by several processes).
LAUNCHER = """
import atexit, resource, runpy, sys
peak = lambda who: resource.getrusage(who).ru_maxrss
atexit.register(
    lambda: print("PEAK_RSS_KB", max(peak(resource.RUSAGE_SELF), peak(resource.RUSAGE_CHILDREN)))
)
sys.argv = ["manage.py", "import_file", sys.argv[1]]
runpy.run_path("manage.py", run_name="__main__")
"""


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:  # the process has gone
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_kib(root: int) -> int:
    """The proportional set size of ``root`` and all its descendants together (KiB)."""
    tree, total, todo = _children(), 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_kib(pid)
        todo.extend(tree.get(pid, []))
    return total


class TreeSampler(threading.Thread):
    """Samples the memory of a process tree until stopped; keeps the peak."""

    def __init__(self, root: int, interval: float = 0.5):
        super().__init__(daemon=True)
        self.root, self.interval, self.peak = root, interval, 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            self.peak = max(self.peak, tree_pss_kib(self.root))


def timed_import(path: Path, env: dict) -> tuple[float, int, int, str]:
    """Run one import in a child process.

    Returns seconds, the peak RSS of its largest process, the peak of all its
    processes together (both KiB) and its summary line.
    """
    started = time.perf_counter()
    child = subprocess.Popen(
        [PYTHON, "-c", LAUNCHER, str(path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sampler = TreeSampler(child.pid)
    sampler.start()
    out, err = child.communicate()
    seconds = time.perf_counter() - started
    sampler.stopped.set()
    sampler.join()
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, "import_file", out, err)
    lines = out.splitlines()
    summary = next(line for line in lines if line.startswith("Import #"))
    peak = int(next(line for line in lines if line.startswith("PEAK_RSS_KB")).split()[1])
    return seconds, peak, sampler.peak, summary


def run(works: int, args) -> dict:
    path = corpus(works)
    env = {**os.environ, "DATABASE_URL": fresh_database(args.server, args.database)}
    env["REDIS_URL"] = args.redis
    if args.parts:
        env["IMPORT_PARTS"] = str(args.parts)
    # As a production worker runs: DEBUG off (DEBUG keeps the last 9,000 queries in memory).
    env["DEBUG"] = "false"
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    sh(PYTHON, "manage.py", "migrate", "-v0", env=env)
    first = timed_import(path, env)
    again = timed_import(path, env)
    sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
    return {"works": works, "fresh": first, "unchanged": again}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", nargs="+", type=int, default=[10_000, 100_000])
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="scholarpages_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    parser.add_argument(
        "--parts", type=int, default=0, help="processes per import (IMPORT_PARTS; 1: one process)"
    )
    parser.add_argument("--summary", action="store_true", help="print each import's summary")
    args = parser.parse_args()
    print(
        f"{'works':>8} {'fresh s':>8} {'fresh/s':>8} {'again s':>8} {'again/s':>8} {'peak RSS':>9}"
        f" {'peak all':>9}  load before/after"
    )
    for works in sorted(args.works):
        before = os.getloadavg()[0]
        result = run(works, args)
        (fresh, rss1, all1, _), (again, rss2, all2, _) = result["fresh"], result["unchanged"]
        print(
            f"{works:>8} {fresh:>8.1f} {works / fresh:>8.0f} {again:>8.1f} {works / again:>8.0f}"
            f" {max(rss1, rss2) / 1024:>7.0f}MB {max(all1, all2) / 1024:>7.0f}MB"
            f"  {before:.2f}/{os.getloadavg()[0]:.2f}",
            flush=True,
        )
        if args.summary:
            print(f"{'':>8} fresh: {result['fresh'][3]}\n{'':>8} again: {result['unchanged'][3]}")


if __name__ == "__main__":
    main()

"""Peak memory of ``manage.py import_file`` on decompression bombs, beside a plain file.

Writes three gzipped snapshots of the same two good works, once and not timed:

- ``plain``: the two works;
- ``line``: a line of ``--gigabytes`` of one repeated byte between them (about
  2 MB gzipped for 2 GB), which an unbounded reader holds whole;
- ``nested``: a line nested 1,000,000 levels deep between them.

Each is imported into a fresh database in a child process; the table shows its
time, the peak resident memory of that process and the import's summary (each
bomb must be one problem, with both works imported)::

    .venv/bin/python -m bench.import_bombs --gigabytes 2
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import tempfile
from pathlib import Path

from bench.import_bench import PYTHON, fresh_database, sh, timed_import

MB = 1024 * 1024


def work(number: int) -> bytes:
    record = {
        "id": f"https://openalex.org/W{number}",
        "title": f"Bombed neighbour {number}",
        "publication_year": 2021,
    }
    return json.dumps(record).encode() + b"\n"


def write(path: Path, middle: list[tuple[bytes, int]]) -> Path:
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(work(1))
        for chunk, times in middle:
            for _ in range(times):
                out.write(chunk)
        out.write(work(2))
    return path


def files(folder: Path, gigabytes: float) -> dict[str, Path]:
    depth = 1_000_000
    return {
        "plain": write(folder / "plain.jsonl.gz", []),
        "line": write(folder / "line.jsonl.gz", [(b"a" * MB, int(gigabytes * 1024)), (b"\n", 1)]),
        "nested": write(folder / "nested.jsonl.gz", [(b"[" * depth + b"]" * depth + b"\n", 1)]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=2.0, help="the long line, unpacked")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default="scholarpages_bench_bombs")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    args = parser.parse_args()
    env = {**os.environ, "DEBUG": "false", "INSTITUTION_LOOKUP": "false", "REDIS_URL": args.redis}
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    print(f"{'file':>7} {'gzipped':>9} {'seconds':>8} {'peak RSS':>9}  summary")
    with tempfile.TemporaryDirectory() as folder:
        for name, path in files(Path(folder), args.gigabytes).items():
            env["DATABASE_URL"] = fresh_database(args.server, args.database)
            sh(PYTHON, "manage.py", "migrate", "-v0", env=env)
            seconds, peak, _, summary = timed_import(path, env)
            size = path.stat().st_size / MB
            print(f"{name:>7} {size:>7.1f}MB {seconds:>8.1f} {peak / 1024:>7.0f}MB  {summary}")
    sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)


if __name__ == "__main__":
    main()

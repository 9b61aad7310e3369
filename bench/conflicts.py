"""A file whose records collide on identifiers, imported beside the same file without them.

Writes a synthetic OpenAlex snapshot (``devtools/corpus.py``) of ``--works`` records
and a copy of it in which ``--share`` of the records (10% by default) collide
with other works: such a record carries the DOI of one earlier work of the file
and, in a location on arxiv.org, the arXiv id of another, so the work its DOI
names would take an arXiv id that another work holds (both are unique). The
earlier works are drawn from the whole file before the record, so some collide
with a work already in the database and some with one of the same batch. Each
such record becomes one import problem; every other record is written as in the
clean file.

Each file is imported with ``manage.py import_file`` in a child process, into a
fresh database copied from a migrated template (copying is not timed), the two
files in turn, ``--rounds`` times. It prints each import's seconds, works per
second and summary, the median seconds of each file and the speed of the file
with conflicts over the speed of the clean file (target: at least 0.5).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/scholarpages_conflict_bench \\
        .venv/bin/python -m bench.conflicts --works 5000 --rounds 3

For a timer that runs each side as a whole process: ``--prepare`` writes the
files and the template, then ``--one clean`` (or ``--one conflicts``) makes a
fresh database and imports that one file once.

Needs a PostgreSQL server (``DATABASE_URL``: the benchmark database and its
template ``<name>_template`` are dropped and created again) and a Redis database
of its own for follow-up tasks (``--redis``; emptied afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path
from random import Random

from bench.import_bench import PYTHON, ROOT, sh, timed_import
from devtools.corpus import write_corpus

TARGET = 0.5  # speed with conflicts / speed without: at least this
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/scholarpages_conflict_bench"


def files(works: int, share: float, seed: int) -> tuple[Path, Path]:
    """The clean corpus and its copy with ``share`` of colliding records (written once)."""
    folder = ROOT / "var" / "corpus"
    clean = folder / f"works-{works}-seed{seed}.jsonl"
    conflicts = folder / f"works-{works}-seed{seed}-conflicts-{round(share * 100)}pc.jsonl"
    if not clean.exists():
        write_corpus(clean, works, seed=seed)
    if not conflicts.exists():
        lines = clean.read_text().splitlines()
        records = [json.loads(line) for line in lines]
        chosen = colliding(records, share, Random(seed))
        with conflicts.open("w") as out:
            for number, line in enumerate(lines):
                out.write((json.dumps(chosen[number]) if number in chosen else line) + "\n")
    return clean, conflicts


def _arxiv_id(record: dict) -> str | None:
    doi = record.get("doi") or ""
    prefix = "https://doi.org/10.48550/arxiv."
    return doi[len(prefix) :] if doi.startswith(prefix) else None


def colliding(records: list[dict], share: float, rng: Random) -> dict[int, dict]:
    """``share`` of the records (by line number), each given a DOI and an arXiv id of others.

    A record keeps its own OpenAlex id; its DOI becomes that of an earlier work
    with a journal DOI and no arXiv id, and a location on arxiv.org gives it the
    arXiv id of an earlier preprint.
    """
    journal = [n for n, r in enumerate(records) if r.get("doi") and not _arxiv_id(r)]
    preprints = [n for n, r in enumerate(records) if _arxiv_id(r)]
    wanted = round(len(records) * share)
    candidates = [n for n in journal if n > min(preprints, default=len(records))]
    chosen = {}
    for number in sorted(rng.sample(candidates[1:], min(wanted, len(candidates) - 1))):
        doi_of = rng.choice([n for n in journal[: journal.index(number)] if n not in chosen])
        arxiv_of = rng.choice([n for n in preprints if n < number])
        record = dict(records[number])
        record["doi"] = records[doi_of]["doi"]
        record["ids"] = {**record["ids"], "doi": record["doi"]}
        arxiv_id = _arxiv_id(records[arxiv_of])
        record["locations"] = [
            record["primary_location"],
            {"landing_page_url": f"https://arxiv.org/abs/{arxiv_id}", "is_oa": True},
        ]
        chosen[number] = record
    return chosen


def _server_and_name(url: str) -> tuple[str, str]:
    server, _, name = url.rpartition("/")
    return server, name


def template(url: str) -> None:
    """A migrated, empty database to copy for each import."""
    server, name = _server_and_name(url)
    sh("psql", f"{server}/postgres", "-qc", f"DROP DATABASE IF EXISTS {name}_template")
    sh("psql", f"{server}/postgres", "-qc", f"CREATE DATABASE {name}_template")
    sh(PYTHON, "manage.py", "migrate", "-v0", env=environment(f"{url}_template", ""))


def fresh(url: str) -> None:
    server, name = _server_and_name(url)
    sh("psql", f"{server}/postgres", "-qc", f"DROP DATABASE IF EXISTS {name}")
    sh("psql", f"{server}/postgres", "-qc", f"CREATE DATABASE {name} TEMPLATE {name}_template")


def environment(url: str, redis: str) -> dict:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "false", "INSTITUTION_LOOKUP": "false"}
    if redis:
        env["REDIS_URL"] = redis
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


def import_once(path: Path, args) -> tuple[float, str]:
    fresh(args.database_url)
    seconds, _, _, summary = timed_import(path, environment(args.database_url, args.redis))
    sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
    return seconds, summary


def side_by_side(clean: Path, conflicts: Path, args) -> None:
    times: dict[str, list[float]] = {"clean": [], "conflicts": []}
    for number in range(1, args.rounds + 1):
        for side, path in (("clean", clean), ("conflicts", conflicts)):
            seconds, summary = import_once(path, args)
            times[side].append(seconds)
            speed = args.works / seconds
            print(f"round {number} {side:>9}: {seconds:6.2f} s {speed:7.0f}/s  {summary}")
    clean_s, conflicts_s = (statistics.median(times[s]) for s in ("clean", "conflicts"))
    pairs = [c / x for c, x in zip(times["clean"], times["conflicts"], strict=True)]
    ratio = clean_s / conflicts_s
    print(
        f"median: clean {clean_s:.2f} s ({args.works / clean_s:.0f}/s), with "
        f"{args.share:.0%} conflicts {conflicts_s:.2f} s ({args.works / conflicts_s:.0f}/s)"
    )
    print(
        f"speed with conflicts / without: {ratio:.2f}x (pairs {min(pairs):.2f}-{max(pairs):.2f}),"
        f" target >= {TARGET}x: {'met' if ratio >= TARGET else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=5000)
    parser.add_argument("--share", type=float, default=0.1, help="colliding records (0.1: 10%%)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/15")
    parser.add_argument("--prepare", action="store_true", help="only the files and the template")
    parser.add_argument("--one", choices=["clean", "conflicts"], help="one import of one file")
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        parser.error("a PostgreSQL DATABASE_URL is needed")
    clean, conflicts = files(args.works, args.share, args.seed)
    if not args.one:
        template(args.database_url)
    if args.prepare:
        return
    if args.one:
        seconds, summary = import_once(clean if args.one == "clean" else conflicts, args)
        print(f"{args.one}: {seconds:.2f} s  {summary}")
        return
    side_by_side(clean, conflicts, args)


if __name__ == "__main__":
    main()

"""Who is who, measured: the identity engine on labelled sets.

    .venv/bin/python bench/identity_eval.py
    .venv/bin/python bench/identity_eval.py --bylines 1000000 --jobs 2
    .venv/bin/python bench/identity_eval.py \\
        --baseline-python /tmp/s2and-venv/bin/python --baseline-runner /tmp/s2and-run/run.py

Sets:

- real: every OpenAlex work recorded under ``--fixtures`` (default
  ``../shared/fixtures/real``), its author ids kept on half of the bylines
  (chosen at random, ``--seed``) and on none. Truth: the OpenAlex author ids.
  OpenAlex itself splits some people; pairs of ids that look like one person
  (full names that agree and a shared co-author) are listed, and a merge
  across them is not counted against precision (column "excused").
- synthetic: a seeded corpus of ``--bylines`` bylines with namesakes and name
  variants (``identity.synthetic``), ids kept on half and on none.

For each set it prints pairwise and B-cubed precision, recall and F1, people
split over several records, records holding two people or more, and seconds
per 1,000 bylines; with ``--baseline-python`` and ``--baseline-runner`` the
same sets are written to a JSON file, clustered by the runner in its own
environment (S2AND), and its figures are printed beside ours.

With ``--through-importer`` the real sets also go through the project's own
import (``import_run_create`` + ``import_run_execute``, follow-up tasks inline):
the works are written as an OpenAlex page with the same author ids (``author.id``,
``author.orcid``) removed and, on those bylines, only the name as printed
(``display_name`` is OpenAlex's one name for all the bylines of an id;
``--keep-display-names`` keeps it), imported into a fresh scratch database each
(SQLite, or the PostgreSQL database ``--importer-database`` names: dropped and
created again), and each byline (work id, position) is scored by the record its
authorship ended on, merges followed (the page is checked first: a byline meant to
go without ids that still carries an OpenAlex id or an ORCID stops the bench).
Rows "import" stand beside the engine's;
``--importer-batch`` sets the works per import batch (1: a batch for each).

    .venv/bin/python bench/identity_eval.py --skip-synthetic --through-importer \\
        --importer-database postgres://postgres@127.0.0.1:5432/h6_eval
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.identity_data import (  # noqa: E402
    byline_places,
    openalex_works,
    stripped_works,
    unstripped,
    work_bylines,
)
from bench.identity_metrics import HEADER, line, score  # noqa: E402
from identity.clusters import Thresholds, resolve  # noqa: E402
from identity.evidence import name_level, profile_of, shared_coauthors  # noqa: E402
from identity.names import INITIALS  # noqa: E402
from identity.synthetic import generate  # noqa: E402

TARGETS = {"pair_p": 0.99, "pair_r": 0.97}


class LabelledSet:
    def __init__(self, name, bylines, truth, excused=frozenset(), notes=()):
        self.name, self.bylines, self.truth = name, bylines, truth
        self.excused, self.notes = excused, list(notes)


def strip_ids(bylines, share: float, seed: int):
    """Copies of the bylines with the author id (and ORCID) removed from ``share`` of them."""
    chooser = random.Random(seed)
    stripped = []
    for byline in bylines:
        if chooser.random() < share:
            byline = replace(byline, source_author_id="", orcid="")
        stripped.append(byline)
    return stripped


def real_sets(fixtures: Path, seed: int) -> list[LabelledSet]:
    works = openalex_works(fixtures / "openalex")
    rows, repeated = [], 0
    for work in works:
        found, dropped = work_bylines(work)
        rows.extend(found)
        repeated += dropped
    bylines = [r[0] for r in rows]
    truth = {r[0].id: r[1] for r in rows}
    excused, notes = openalex_splits(rows)
    notes.insert(
        0, f"real: {len(works)} works, {len(bylines)} bylines, {len(set(truth.values()))} ids"
    )
    if repeated:
        notes.append(f"real: {repeated} author(s) listed twice on one work, kept once")
    return [
        LabelledSet("real, half the ids", strip_ids(bylines, 0.5, seed), truth, excused, notes),
        LabelledSet("real, no ids", strip_ids(bylines, 1.0, seed), truth, excused),
    ]


def openalex_splits(rows) -> tuple[frozenset, list[str]]:
    """Pairs of ids that look like one person: one OpenAlex person split, or misassigned.

    Rule (printed for checking by hand): every printed name of one id agrees
    with every printed name of the other, they share at least one co-author
    whose names agree, and they never sign one work together.
    """
    by_id: dict[str, list] = {}
    for byline, person, _ in rows:
        by_id.setdefault(person, []).append(byline)
    pooled = {}
    for person, bylines in by_id.items():
        profile = profile_of(replace(bylines[0], orcid="", source_author_id=""))
        for byline in bylines[1:]:
            profile.absorb(profile_of(replace(byline, orcid="", source_author_id="")))
        pooled[person] = profile
    groups: dict[str, list[str]] = {}
    for person, profile in pooled.items():
        groups.setdefault(next(iter(profile.names)).block, []).append(person)
    found, notes = set(), []
    for members in groups.values():
        for i, left in enumerate(sorted(members)):
            for right in sorted(members)[i + 1 :]:
                a, b = pooled[left], pooled[right]
                if a.works & b.works or name_level(a, b) < INITIALS:
                    continue
                if shared_coauthors(a, b) >= 0.5:
                    found.add((left, right))
                    names = sorted({n.raw for n in a.names} | {n.raw for n in b.names})
                    notes.append(f"one person under two ids? {left} / {right}: {names}")
    return frozenset(found), notes


def synthetic_sets(size: int, seed: int) -> list[LabelledSet]:
    corpus = generate(size, seed=seed)
    bylines = [b for b, _ in corpus]
    truth = {b.id: person for b, person in corpus}
    notes = [f"synthetic: {len(bylines)} bylines, {len(set(truth.values()))} people (seed {seed})"]
    return [
        LabelledSet(
            f"synthetic {size}, half ids", strip_ids(bylines, 0.5, seed), truth, notes=notes
        ),
        LabelledSet(f"synthetic {size}, no ids", strip_ids(bylines, 1.0, seed), truth),
    ]


def _cpu() -> float:
    """Processor seconds of this process and of the finished worker processes."""
    own, workers = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def run_ours(labelled: LabelledSet, thresholds: Thresholds, jobs: int, rounds: int):
    started, cpu = time.perf_counter(), _cpu()
    resolution = resolve(labelled.bylines, thresholds=thresholds, jobs=jobs, rounds=rounds)
    seconds = time.perf_counter() - started
    return resolution.cluster_of(), seconds, resolution, _cpu() - cpu


def show_errors(labelled: LabelledSet, predicted: dict[str, int], limit: int = 40) -> None:
    """Print the wrong merges and the missed pairs of a set (for reading, not scoring)."""
    by_id = {b.id: b for b in labelled.bylines}
    records: dict[int, list[str]] = {}
    for byline, record in predicted.items():
        records.setdefault(record, []).append(byline)
    for ids in records.values():
        people = {labelled.truth[i] for i in ids}
        if len(people) > 1:
            print("  MIXED:", [(by_id[i].name, labelled.truth[i][-8:]) for i in ids][:limit])
    people: dict[str, list[str]] = {}
    for byline, person in labelled.truth.items():
        people.setdefault(person, []).append(byline)
    for person, ids in people.items():
        if len({predicted[i] for i in ids}) > 1:
            print(f"  SPLIT {person[-10:]}:", [(by_id[i].name, predicted[i]) for i in ids][:limit])


def run_baseline(args, sets: list[LabelledSet]) -> dict:
    """Cluster the sets with the runner in its own environment; {} when not configured."""
    python, runner = args.baseline_python, args.baseline_runner
    if not python or not runner:
        print("baseline: skipped (give --baseline-python and --baseline-runner to run S2AND)")
        return {}
    if not Path(python).exists() or not Path(runner).exists():
        print(f"baseline: skipped ({python} or {runner} is absent)")
        return {}
    taken = [s for s in sets if len(s.bylines) <= args.baseline_max]
    for skipped in sets:
        if skipped not in taken:
            print(f"baseline: {skipped.name} skipped (over --baseline-max {args.baseline_max})")
    if not taken:
        return {}
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "sets.json", Path(folder) / "clusters.json"
        payload = [{"name": s.name, "bylines": [asdict(b) for b in s.bylines]} for s in taken]
        source.write_text(json.dumps({"sets": payload}))
        command = [python, runner, str(source), str(target)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode or not target.exists():
            print(f"baseline: failed ({done.returncode}): {done.stderr.strip()[-800:]}")
            return {}
        return json.loads(target.read_text())


def _excuses(scores, raw) -> None:
    if scores.excused:
        print(
            f"{'':<33}{scores.excused} merged pair(s) excused as one person under two ids "
            f"(pair P {raw.pair_p:.4f} counting them); {scores.mixed_excused} of the "
            f"{scores.mixed} mixed record(s) hold only such"
        )


def _django(folder: Path, database: str, batch: int) -> None:
    """Set Django up on the scratch database; tasks run inline (no broker)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["DATABASE_URL"] = database or f"sqlite:///{folder / 'eval.sqlite3'}"
    os.environ.pop("REDIS_URL", None)
    os.environ["INSTITUTION_LOOKUP"] = "false"
    os.environ["IMPORT_BATCH_SIZE"] = str(batch)
    import django

    django.setup()
    logging.disable(logging.INFO)  # the tasks' log lines


def _fresh_database() -> None:
    """Drop and create the scratch database, then migrate it."""
    from django.core.management import call_command
    from django.db import connection

    connection.close()
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        Path(name).unlink(missing_ok=True)
    else:
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            cursor.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0, interactive=False)


def _import_file(path: Path):
    from ingestion.importing.dispatch import import_run_create
    from ingestion.importing.execution import import_run_execute

    paths = {"paths": [str(path)]}
    run = import_run_create(source="openalex", kind="file", parameters=paths, queue=False)
    import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    return run


def held_positions(works: list[dict]) -> dict[tuple[str, int], int]:
    """(short work id, position) -> the author holding it, for every imported record.

    A record that does not write its work's byline (a preprint beside its version
    of record, ``ingestion.ingest.versions``) is read through the work that holds it:
    each of its names stands for the author the kept byline gives to that name
    (aligned by name, as the importer aligns them).
    """
    from catalogue.models import Authorship, SourceRecord, Work
    from ingestion.ingest.versions import align

    records = SourceRecord.objects.filter(source="openalex", entity="work")
    work_of = dict(records.values_list("external_id", "work_id"))
    rows = Work.objects.values_list("pk", "merged_into_id", "openalex_id")
    merged = {pk: into for pk, into, _ in rows if into}
    short_of = {pk: short for pk, _, short in rows}
    kept: dict[int, list[tuple[int, str, int]]] = {}
    for work_id, position, raw, shown, author in Authorship.objects.values_list(
        "work_id", "position", "raw_name", "author__display_name", "author_id"
    ):
        kept.setdefault(work_id, []).append((position, raw or shown, author))
    held = {}
    for work in works:
        short, pk = work["id"].rsplit("/", 1)[-1], work_of.get(work["id"].rsplit("/", 1)[-1])
        while pk in merged:
            pk = merged[pk]
        entries = sorted(kept.get(pk, []))
        if short_of.get(pk) == short:
            held.update({(short, position): author for position, _, author in entries})
            continue
        names = [
            (a.get("author") or {}).get("display_name") or a.get("raw_author_name") or ""
            for a in work.get("authorships") or []
        ]
        for i, j in align([name for _, name, _ in entries], names):
            held[(short, j)] = entries[i][2]
    return held


def ended_on(labelled: LabelledSet, places, works: list[dict]) -> tuple[dict[str, int], int, int]:
    """The record each byline ended on (merges followed); a byline no authorship
    holds is a record of its own. Returns the mapping, how many were not held, and
    how many records hold only listings the bench does not score (an author listed
    twice on a work: the second listing, on a record of its own)."""
    from catalogue.models import Author

    merged = dict(
        Author.objects.filter(merged_into__isnull=False).values_list("pk", "merged_into_id")
    )

    def final(author):
        seen = set()
        while author in merged and author not in seen:
            seen.add(author)
            author = merged[author]
        return author

    held = held_positions(works)
    predicted, missing = {}, 0
    for n, byline in enumerate(labelled.bylines):
        short, position, _ = places[byline.id]
        author = final(held.get((short, position)))
        predicted[byline.id] = author if author is not None else -1 - n
        missing += author is None
    scored = {places[b.id][:2] for b in labelled.bylines}
    unscored = {final(a) for spot, a in held.items() if spot not in scored}
    return predicted, missing, len(unscored - set(predicted.values()))


def run_importer(args, sets: list[LabelledSet]) -> dict:
    """Import each real set into a fresh scratch database: {name: (predicted, seconds)}."""
    real = [s for s in sets if s.name.startswith("real")]
    if not args.through_importer or not real:
        return {}
    works = openalex_works(args.fixtures / "openalex")
    places = byline_places(works)
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        _django(Path(folder), args.importer_database, args.importer_batch)
        for n, labelled in enumerate(real):
            _fresh_database()
            path = Path(folder) / f"works-{n}.json"
            page = stripped_works(works, labelled.bylines, places, not args.keep_display_names)
            leaks, display_only = unstripped(page, labelled.bylines, places)
            if leaks:
                raise SystemExit(f"{labelled.name}: bylines still carrying an id: {leaks[:10]}")
            path.write_text(json.dumps({"meta": {"count": len(page)}, "results": page}))
            started = time.perf_counter()
            run = _import_file(path)
            seconds = time.perf_counter() - started
            predicted, missing, extra = ended_on(labelled, places, page)
            bare = sum(1 for b in labelled.bylines if not b.source_author_id and not b.orcid)
            print(
                f"import of {labelled.name}: run {run.status}, {seconds:.1f} s, batches of "
                f"{args.importer_batch} works, {run.problems.count()} work(s) refused; "
                f"{missing} byline(s) on no authorship (each scored as a record of its own); "
                f"{bare} byline(s) sent without id or ORCID ({display_only} under OpenAlex's "
                f"display name, no name as printed given); {extra} record(s) made only for "
                "an author listed twice on a work (not scored)"
            )
            found[labelled.name] = (predicted, seconds)
    return found


def report(sets, ours, baseline, imported=None) -> list[str]:
    failures = []
    imported = imported or {}
    print(HEADER)
    for labelled in sets:
        predicted, seconds = ours[labelled.name][:2]
        scores = score(predicted, labelled.truth, labelled.excused)
        print(line(labelled.name, "ours", len(labelled.bylines), scores, seconds))
        _excuses(scores, score(predicted, labelled.truth))
        theirs = baseline.get(labelled.name)
        if theirs:
            mapping = {i: n for n, ids in enumerate(theirs["clusters"]) for i in ids}
            mapping.update(
                {b.id: -1 - k for k, b in enumerate(labelled.bylines) if b.id not in mapping}
            )
            base = score(mapping, labelled.truth, labelled.excused)
            print(line(labelled.name, "S2AND", len(labelled.bylines), base, theirs["seconds"]))
            _excuses(base, score(mapping, labelled.truth))
        checked = [("", scores)]
        if labelled.name in imported:
            predicted, seconds = imported[labelled.name]
            through = score(predicted, labelled.truth, labelled.excused)
            print(line(labelled.name, "import", len(labelled.bylines), through, seconds))
            _excuses(through, score(predicted, labelled.truth))
            checked.append((" (importer)", through))
        for suffix, found in checked:
            for key, target in TARGETS.items():
                if getattr(found, key) < target:
                    failures.append(
                        f"{labelled.name}{suffix}: {key} {getattr(found, key):.4f} < {target}"
                    )
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", type=Path, default=ROOT.parent / "shared/fixtures/real")
    parser.add_argument("--bylines", type=int, default=20000, help="size of the synthetic corpus")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=1, help="processes sharing the blocks")
    parser.add_argument("--merge", type=float, default=Thresholds.merge)
    parser.add_argument("--candidate", type=float, default=Thresholds.candidate)
    parser.add_argument("--linkage", choices=("average", "complete"), default="average")
    parser.add_argument("--no-pooled", action="store_true", help="skip the pooled second pass")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (co-authors by record)")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument(
        "--through-importer", action="store_true", help="also import the real sets (rows import)"
    )
    parser.add_argument(
        "--importer-database",
        default="",
        help="PostgreSQL URL of a scratch database (dropped and created again; default: SQLite)",
    )
    parser.add_argument("--importer-batch", type=int, default=1000, help="works per batch")
    parser.add_argument(
        "--keep-display-names",
        action="store_true",
        help="importer: bylines without ids keep OpenAlex's name for the person too",
    )
    parser.add_argument("--baseline-python")
    parser.add_argument("--baseline-runner")
    parser.add_argument(
        "--baseline-max", type=int, default=60000, help="largest set the baseline is given"
    )
    args = parser.parse_args(argv)
    thresholds = Thresholds(args.merge, args.candidate, args.linkage, not args.no_pooled)
    sets: list[LabelledSet] = []
    if not args.skip_real:
        if (args.fixtures / "openalex").is_dir():
            sets.extend(real_sets(args.fixtures, args.seed))
        else:
            print(f"real: skipped ({args.fixtures / 'openalex'} is absent)")
    if not args.skip_synthetic:
        sets.extend(synthetic_sets(args.bylines, args.seed))
    for labelled in sets:
        for note in labelled.notes:
            print(note)
    ours = {s.name: run_ours(s, thresholds, args.jobs, args.rounds) for s in sets}
    if args.show_errors:
        for labelled in sets:
            print(f"errors in {labelled.name}:")
            show_errors(labelled, ours[labelled.name][0])
    imported = run_importer(args, sets)
    if args.show_errors:
        for name, (predicted, _) in imported.items():
            print(f"errors in {name}, through the importer:")
            show_errors(next(s for s in sets if s.name == name), predicted)
    baseline = run_baseline(args, sets)
    failures = report(sets, ours, baseline, imported)
    candidates = {name: len(result[2].candidates) for name, result in ours.items()}
    print("candidates (pairs of records between the thresholds):", candidates)
    cpu = {s.name: round(ours[s.name][3] * 1000 / max(len(s.bylines), 1), 3) for s in sets}
    print("ours, processor seconds per 1,000 bylines (all processes):", cpu)
    print(
        f"thresholds: merge {thresholds.merge}, candidate {thresholds.candidate}, "
        f"{thresholds.linkage} linkage, pooled pass {'on' if thresholds.pooled else 'off'}"
    )
    for failure in failures:
        print("below target:", failure)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())

"""The part runner: one process writes one part of a run, holding it while it writes.

A run is written in one part, or (a large snapshot file on PostgreSQL) in
several, each a share of its records with a position of its own. Whoever writes
a part holds its advisory lock; the batches themselves are the pipeline's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection

from catalogue.models import ImportRun
from ingestion.importing import pipeline
from ingestion.importing.positions import WHOLE, Part, Position
from ingestion.importing.runs import RunCancelled, RunFinished


def part_count(run: ImportRun) -> int:
    """How many parts a run is written in: as many as it was started with, when it resumes."""
    if isinstance(run.cursor, dict) and isinstance(run.cursor.get("parts"), list):
        return max(len(run.cursor["parts"]), 1)
    if Position.load(run.cursor) != Position():  # started in one part: it goes on in one
        return 1
    if run.kind != ImportRun.Kind.FILE or connection.vendor != "postgresql":
        return 1
    sizes = [Path(p).stat().st_size for p in run.parameters["paths"] if Path(p).is_file()]
    if sum(sizes) < settings.IMPORT_PARTS_MIN_BYTES:
        return 1
    return settings.IMPORT_PARTS


def can_start_processes() -> bool:
    """A daemonic process (some worker pools) may not start processes of its own."""
    import multiprocessing

    return connection.vendor == "postgresql" and not multiprocessing.current_process().daemon


def execute_part(
    run: ImportRun, part: Part = WHOLE, progress: Callable | None = None, *, main: bool = True
) -> None:
    """Write ``part`` of a run from its saved position to its end.

    Raises ``RunCancelled`` when the run is cancelled meanwhile. ``main``: this is
    the process that keeps the planner's statistics up to date (one per run).
    """
    with part_held(run, part):
        pipeline.part_write(run, part, progress, main=main)


@contextmanager
def part_held(run: ImportRun, part: Part):
    """Hold the part for the caller: one process at a time writes a part of a run (PostgreSQL).

    A worker that lost its task (or a part whose parent is gone) may still be
    writing its last batch when the run is started again; the new writer waits
    for it here, then reads the position it left.
    """
    if connection.vendor != "postgresql":
        yield
        return
    key = [run.pk % 2**31, part.index]  # the two-key form, used for nothing else
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", key)
        run.refresh_from_db(fields=["status", "cursor", "counters", "processed", "total"])
        if run.status == ImportRun.Status.CANCELLED:
            raise RunCancelled
        if run.status == ImportRun.Status.SUCCEEDED:
            raise RunFinished
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)
        except DatabaseError:  # the session cannot answer: closing it lets the lock go
            connection.close()

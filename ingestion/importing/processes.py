"""Writing one import run with several processes, each taking a part of its files.

One process holds Python's interpreter lock for its reading, mapping and writing,
and waits while PostgreSQL writes what it sent; another process, with a
connection of its own, keeps the other core busy meanwhile. Part 0 is written
by the calling process, the others by processes started with ``spawn`` (a fresh
interpreter: nothing of the caller's threads or connections is inherited).

Every line of one record falls to the same part (``files.Part``), so versions
of a record are written in file order. Each part saves its own position with
each of its batches, so a run resumes part by part, and holds an advisory lock
while it writes (``parts.part_held``). The parts meet only in the shared rows
(authors, institutions, topics, venues, funders), which are created with ``ON
CONFLICT DO NOTHING`` and read back; a batch that deadlocks with another part is
written again (``pipeline.write_batch``). When one part fails, the calling
process notices after its next batch and stops the others.

This module imports nothing of Django at the top: a child process unpickles
``run_part`` before Django is set up.
"""

from __future__ import annotations

import logging
import os
from contextlib import suppress

logger = logging.getLogger("publications")

STOPPED = "stopped"
STOPPED_CANCELLED = "RunCancelled"
REPORT_LIMIT = 2000  # characters of a part's error sent back to the run
SHARED_SETTINGS = ("IMPORT_BATCH_SIZE",)


def execute_in_processes(run, count: int, progress=None) -> None:
    """Write part 0 of ``run`` here and parts 1 … ``count - 1`` in processes of their own.

    Raises ``RunCancelled`` when the run was cancelled, ``PartFailed`` when a part
    stopped with an error; the other parts are stopped then (their open batches
    roll back, their saved positions stay).
    """
    import multiprocessing

    from celery import current_app
    from django.conf import settings
    from django.db import connection

    from ingestion.importing.parts import execute_part
    from ingestion.importing.positions import Part
    from ingestion.importing.runs import PartFailed, RunCancelled

    context = multiprocessing.get_context("spawn")
    options = {
        "database": connection.settings_dict["NAME"],
        "settings_module": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
        "eager": bool(current_app.conf.task_always_eager),
        # As the starting process has them, whatever the children's environment says.
        "settings": {name: getattr(settings, name) for name in SHARED_SETTINGS},
        "parent": os.getpid(),
    }
    watched = _Children(count)
    try:
        for index in range(1, count):
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(
                target=run_part,
                args=(run.pk, index, count, options, sender),
                name=f"import-run-{run.pk}-part-{index}",
            )
            process.start()
            sender.close()
            watched.add(index, process, receiver)

        def after_batch(current) -> None:
            watched.raise_if_one_failed()  # no use writing on once another part failed
            if progress:
                progress(current)

        try:
            execute_part(run, Part(0, count), after_batch)
        except RunCancelled:
            watched.cancelled = True
        except PartFailed:
            pass  # another part failed: the rest are stopped below
        watched.collect_all()
    finally:
        watched.stop_the_rest()
    run.refresh_from_db(fields=["counters", "processed", "cursor", "total"])  # all parts' counts
    if watched.outcomes:
        raise PartFailed(watched.failures())
    if watched.cancelled:
        raise RunCancelled


class _Children:
    """The processes writing the other parts, and how each ended."""

    def __init__(self, count: int):
        self.count = count
        self.running: dict[int, tuple] = {}
        self.outcomes: dict[int, str] = {}
        self.cancelled = False

    def add(self, index: int, process, receiver) -> None:
        self.running[index] = (process, receiver)

    def _collect(self, index: int) -> None:
        """Read how part ``index`` ended (it has reported, or its pipe closed) and reap it."""
        process, receiver = self.running.pop(index)
        try:
            outcome = receiver.recv()  # before joining: a long report waits to be read
            silent = False
        except (EOFError, OSError):  # it ended without a word (e.g. killed)
            outcome, silent = None, True
        process.join()
        if silent:
            outcome = f"the process ended with exit code {process.exitcode}"
        if outcome == STOPPED_CANCELLED:
            self.cancelled = True
        elif outcome is not None:
            self.outcomes[index] = outcome

    def raise_if_one_failed(self) -> None:
        from ingestion.importing.runs import PartFailed

        for index in [i for i, (_, receiver) in self.running.items() if receiver.poll()]:
            self._collect(index)
        if self.outcomes:
            raise PartFailed(self.failures())

    def collect_all(self) -> None:
        """Wait for the parts still running, each as it ends; stop waiting when one failed."""
        from multiprocessing.connection import wait

        while self.running and not self.outcomes:
            ready = wait([receiver for _, receiver in self.running.values()])
            for index in [i for i, (_, receiver) in self.running.items() if receiver in ready]:
                self._collect(index)

    def failures(self) -> str:
        return "; ".join(
            f"part {i + 1} of {self.count}: {o}" for i, o in sorted(self.outcomes.items())
        )

    def stop_the_rest(self) -> None:
        """This process failed or another part did: the parts still running stop too."""
        for process, _ in self.running.values():
            if process.is_alive():
                process.terminate()
            process.join()


def run_part(run_id: int, index: int, count: int, options: dict, report) -> None:
    """The body of a child process: set Django up as the parent has it, write one part."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", options["settings_module"])
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = options["database"]  # e.g. a test database
    for name, value in options["settings"].items():
        setattr(settings, name, value)
    import django

    django.setup()
    from celery import current_app

    from catalogue.models import ImportRun
    from ingestion.importing.parts import execute_part
    from ingestion.importing.positions import Part
    from ingestion.importing.runs import RunCancelled

    current_app.conf.task_always_eager = options["eager"]

    def still_wanted(run) -> None:
        if os.getppid() != options["parent"]:  # the parent is gone: leave the run to a resume
            raise ParentGone

    outcome = None
    try:
        run = ImportRun.objects.get(pk=run_id)
        execute_part(run, Part(index, count), still_wanted, main=False)
    except RunCancelled:
        outcome = STOPPED_CANCELLED
    except ParentGone:
        outcome = STOPPED
    except BaseException as exc:
        logger.exception("Part %s of %s of import run %s failed", index + 1, count, run_id)
        outcome = f"{type(exc).__name__}: {exc}"[:REPORT_LIMIT]
    finally:
        from django.db import connections

        connections.close_all()
    with suppress(OSError):  # the parent is gone
        report.send(outcome)


class ParentGone(Exception):
    """The process that started this part has ended."""

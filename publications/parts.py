"""Writing one import run with several processes, each taking a part of its files.

One process holds Python's interpreter lock for its reading, mapping and writing,
and waits while PostgreSQL writes what it sent; another process, with a
connection of its own, keeps the other core busy meanwhile. Part 0 is written
by the calling process, the others by processes started with ``spawn`` (a fresh
interpreter: nothing of the caller's threads or connections is inherited).

Each part saves its own position with each of its batches, so a run resumes
part by part. The parts meet only in the shared rows (authors, institutions,
topics, venues, funders), which are created with ``ON CONFLICT DO NOTHING`` and
read back; a batch that deadlocks with another part is written again
(``imports._write_batch``).

This module imports nothing of Django at the top: a child process unpickles
``run_part`` before Django is set up.
"""

from __future__ import annotations

import logging
import os
from contextlib import suppress

logger = logging.getLogger("publications")

STOPPED = "stopped"
SHARED_SETTINGS = ("IMPORT_BATCH_SIZE",)  # as the starting process has them, whatever the env


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

    from publications.imports import Part, PartFailed, RunCancelled, execute_part

    context = multiprocessing.get_context("spawn")
    children = []
    options = {
        "database": connection.settings_dict["NAME"],
        "settings_module": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
        "eager": bool(current_app.conf.task_always_eager),
        # Positions count batches: every part must cut its lines into batches alike.
        "settings": {name: getattr(settings, name) for name in SHARED_SETTINGS},
        "parent": os.getpid(),
    }
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
            children.append((index, process, receiver))
        cancelled = False
        try:
            execute_part(run, Part(0, count), progress)
        except RunCancelled:
            cancelled = True
        failures = []
        for index, process, receiver in children:
            outcome = _outcome(process, receiver)
            if outcome == RunCancelled.__name__:
                cancelled = True
            elif outcome is not None:
                failures.append(f"part {index + 1} of {count}: {outcome}")
    finally:
        for _, process, _ in children:
            if process.is_alive():  # this process failed: the others stop too
                process.terminate()
                process.join()
    run.refresh_from_db(fields=["counters", "processed", "cursor", "total"])  # all parts' counts
    if failures:
        raise PartFailed("; ".join(failures))
    if cancelled:
        raise RunCancelled


def _outcome(process, receiver) -> str | None:
    """None when the part finished, else the name of how it stopped (or its error)."""
    process.join()
    try:
        if receiver.poll():
            return receiver.recv()
    except (EOFError, OSError):
        pass
    return f"the process ended with exit code {process.exitcode}"


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

    from publications.imports import Part, RunCancelled, execute_part
    from publications.models import ImportRun

    current_app.conf.task_always_eager = options["eager"]

    def still_wanted(run) -> None:
        if os.getppid() != options["parent"]:  # the parent is gone: leave the run to a resume
            raise ParentGone

    outcome = None
    try:
        run = ImportRun.objects.get(pk=run_id)
        execute_part(run, Part(index, count), still_wanted, main=False)
    except RunCancelled:
        outcome = RunCancelled.__name__
    except ParentGone:
        outcome = STOPPED
    except BaseException as exc:
        logger.exception("Part %s of %s of import run %s failed", index + 1, count, run_id)
        outcome = f"{type(exc).__name__}: {exc}"
    finally:
        from django.db import connections

        connections.close_all()
    with suppress(OSError):  # the parent is gone
        report.send(outcome)


class ParentGone(Exception):
    """The process that started this part has ended."""

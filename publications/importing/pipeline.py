"""Import runs: asking for an import, and carrying one out page by page.

A run pages through its source from the saved cursor, maps each payload (a
payload that cannot be mapped becomes an ImportProblem and the page goes on)
and writes each batch in one transaction together with the new cursor and
counters, so a worker killed mid-run resumes where it stopped and writes
nothing twice.

Batches are written in order by one connection, but the work that needs no
database overlaps the writing: while batch N is written, a thread reads the next
page, hashes batches N+1 and N+2 and maps their changed payloads (their stored
hashes were read when they were read). Whatever the batches before them rewrote
is checked again before they are written, so the result is the one a strictly
sequential run would give.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.utils import timezone

from publications import quarantine, signals
from publications.identifiers import normalize_openalex_id
from publications.ingest import (
    Ahead,
    BatchResult,
    ingest_authors,
    ingest_institutions,
    ingest_works,
)
from publications.ingest.entities import upsert_topics, upsert_venues
from publications.ingest.hashing import hashed
from publications.ingest.lookups import stored_records
from publications.ingest.merge import new_work
from publications.ingest.works import raise_title_candidates_between_parts
from publications.models import (
    Author,
    Authorship,
    ImportProblem,
    ImportRun,
    Source,
    SourceRecord,
    Work,
)
from publications.records import MappingError, Page, SourceError
from publications.sources import files

logger = logging.getLogger("publications")

KINDS = {
    Source.OPENALEX: {"author", "orcid", "dois", "filter", "refresh"},
    Source.ARXIV: {"query", "ids", "category"},
}
COUNTERS = ("created", "updated", "unchanged", "problems")
WORK_ENTITIES = {"work", "arxiv"}
FINISHED = {ImportRun.Status.SUCCEEDED, ImportRun.Status.CANCELLED}
GC_YOUNG_THRESHOLD = 200_000  # allocations between young collections during a run (default 700)
SWITCH_INTERVAL = 0.0002  # seconds the mapping thread may hold the GIL while a query returns
LOOKAHEAD = 2  # batches prepared ahead of the one being written
ANALYZE_AFTER = 1000  # new works before the lookup tables are first analysed during a run
RETRIES = 5  # attempts at a batch that deadlocks with another writer


class RunCancelled(Exception):
    pass


class RunFinished(RunCancelled):
    """Another writer finished the run meanwhile: there is nothing left to do."""


def _require(parameters: dict, *names: str) -> None:
    for name in names:
        if not parameters.get(name):
            raise ValidationError({"parameters": f"'{name}' is required for this kind of import."})


def _validate(source: str, kind: str, parameters: dict) -> None:
    if kind == ImportRun.Kind.FILE:
        _require(parameters, "paths")
        missing = [p for p in parameters["paths"] if not Path(p).exists()]
        if missing:
            raise ValidationError({"parameters": f"No such file: {', '.join(missing)}"})
        return
    if kind not in KINDS.get(source, set()):
        allowed = ", ".join(sorted(KINDS.get(source, set()))) or "none"
        raise ValidationError({"kind": f"{source} imports take one of: {allowed}."})
    required = {
        "author": ("id",), "orcid": ("orcid",), "dois": ("dois",), "filter": ("filter",),
        "refresh": ("author_ids",), "query": ("query",), "ids": ("ids",),
        "category": ("category", "from", "to"),
    }  # fmt: skip
    _require(parameters, *required[kind])


def import_run_create(
    *,
    source: str,
    kind: str,
    parameters: dict,
    requested_by=None,
    queue: bool = True,
    background: bool = False,
) -> ImportRun:
    """Record an import and queue it once the transaction commits (see ``import_run_queue``)."""
    _validate(source, kind, parameters)
    run = ImportRun.objects.create(
        source=source, kind=kind, parameters=parameters, requested_by=requested_by
    )
    if queue:
        import_run_queue(run=run, background=background)
    return run


def import_run_queue(*, run: ImportRun, background: bool = False) -> None:
    """``background``: the caller returns at once, even without a broker."""
    from publications.importing import dispatch

    dispatch.import_run_queue(run=run, background=background)


# Carrying a run out ----------------------------------------------------------


@dataclass
class Position:
    """Where a run stands: the cursor that fetches the current page, and how much of it is done."""

    at: object = None
    done: int = 0

    @classmethod
    def load(cls, cursor) -> Position:
        if isinstance(cursor, dict):
            return cls(cursor.get("at"), int(cursor.get("done", 0)))
        return cls()

    def dump(self) -> dict:
        return {"at": self.at, "done": self.done}


@dataclass(frozen=True)
class Part(files.Part):
    """Which share of a run one process writes: part ``index`` (from 0) of ``count``.

    A run in one part keeps one position as its cursor; a run in parts keeps one
    per part (``{"parts": [position, ...]}``), each saved with that part's batches.
    """

    def position(self, cursor) -> Position:
        if self.count == 1:
            return Position.load(cursor)
        slots = cursor.get("parts") if isinstance(cursor, dict) else None
        return Position.load(slots[self.index] if slots else None)

    def cursor(self, current, after: Position):
        """``current`` (the run's saved cursor) with this part's position moved to ``after``."""
        if self.count == 1:
            return after.dump()
        slots = current.get("parts") if isinstance(current, dict) else None
        slots = list(slots) if slots and len(slots) == self.count else [None] * self.count
        slots[self.index] = after.dump()
        return {"parts": slots}


WHOLE = Part()


def _pager(run: ImportRun, part: Part) -> Callable[[object], Iterator[Page | SourceError]]:
    if run.kind == ImportRun.Kind.FILE:
        return lambda at: _file_pages(run.parameters["paths"], at, part)
    if run.source == Source.OPENALEX:
        from publications.sources.openalex import fetching as module
    else:
        from publications.sources.arxiv import fetching as module
    return lambda at: module.pages(run.kind, run.parameters, cursor=at)


def _file_pages(paths: list[str], at, part: Part = WHOLE) -> Iterator[Page | SourceError]:
    """Pages from recorded files (``part`` of them), from the position ``at`` on.

    A position counts the records of the part read before it, across files, and
    the problems met right there that are recorded already: ``{"records": n,
    "problems": k}``. So a run resumes at the same record whatever batch size it
    resumes with, and records each problem once. A bare number, as runs saved
    before, counts batches; a part of a run that saved bare numbers (when parts
    took blocks of lines, not records) reads its records again from the start,
    and those it wrote are found unchanged.
    """
    skip_batches = 0
    if isinstance(at, dict):
        skip, skip_problems = at.get("records", 0), at.get("problems", 0)
    else:
        skip = skip_problems = 0
        skip_batches = int(at or 0) if part.count == 1 else 0
    index = records = here = 0  # here: problems met since the last record
    for path in paths:
        for item in files.read_file(Path(path), part):
            if isinstance(item, SourceError):
                here += 1
                after = records > skip or (records == skip and here > skip_problems)
                if after and index >= skip_batches:
                    item.resume_at = {"records": records, "problems": here}
                    yield item
                continue
            before = records
            records += len(item.payloads)
            here = 0 if item.payloads else here
            if records < skip or (item.payloads and records == skip):
                continue  # written before the stop
            # A recorded list page's count is its query's, not the file's: the run's
            # total is what this page holds on top of what the files before it held.
            total = records if item.total is not None else None
            cut = max(skip - before, 0)
            item.payloads, done = item.payloads[cut:], before + cut
            for chunk in _chunks(item, total):
                index += 1
                done += len(chunk.payloads)
                if index > skip_batches:
                    chunk.next_cursor = {"records": done}
                    yield chunk


def _chunks(page: Page, total: int | None) -> Iterator[Page]:
    size = settings.IMPORT_BATCH_SIZE
    for start in range(0, max(len(page.payloads), 1), size):
        yield Page(page.entity, page.payloads[start : start + size], page.next_cursor, total)


def import_run_execute(*, run_id: int, progress: Callable | None = None) -> ImportRun:
    """Carry out (or resume) a run until its source is exhausted or it is cancelled.

    ``progress(run)`` is called after every batch (the management commands draw a bar).
    A large snapshot file is written by several processes (``parts``), each taking
    its share of the lines; otherwise the run is written here.
    """
    run = ImportRun.objects.get(pk=run_id)
    if run.status in FINISHED:
        _announce_end(run)  # e.g. cancelled before a worker took it
        return run
    run.status = ImportRun.Status.RUNNING
    run.started_at = run.started_at or timezone.now()
    run.heartbeat_at = timezone.now()
    run.error = ""
    run.save(update_fields=["status", "started_at", "heartbeat_at", "error"])
    count = _part_count(run)
    try:
        if count > 1 and _can_start_processes():
            from publications.importing import processes

            processes.execute_in_processes(run, count, progress)
        else:
            for index in range(count):
                execute_part(run, Part(index, count), progress)
        if count > 1:  # parts written at once (now or before a resume) miss each other's works
            raise_title_candidates_between_parts(run)
        _look_up_institutions(run)
        _finish(run, ImportRun.Status.SUCCEEDED)
    except RunCancelled:
        pass
    except PartFailed as exc:
        _finish(run, ImportRun.Status.FAILED, str(exc))
    except SourceError as exc:
        _record_source_error(run, exc)
        _finish(run, ImportRun.Status.FAILED, str(exc))
    except Exception as exc:
        if isinstance(exc, SoftTimeLimitExceeded):
            raise  # the task queues the run again; it goes on from its cursor
        logger.exception("Import run %s stopped with an error", run.pk)
        with suppress(DatabaseError):  # e.g. the connection is gone: the run stays running
            _finish(run, ImportRun.Status.FAILED, f"Stopped by an error: {exc}"[:2000])
            _announce_end(run)
        raise
    _announce_end(run)
    return run


ENDED = {ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED, ImportRun.Status.CANCELLED}


def _announce_end(run: ImportRun) -> None:
    """Tell the receivers of ``import_run_ended`` when the run has ended (read from its row).

    A receiver that fails is logged: the run's own outcome stands.
    """
    status = ImportRun.objects.filter(pk=run.pk).values_list("status", flat=True).first()
    if status not in ENDED:
        return  # e.g. left running for a resume, or queued again
    replies = signals.import_run_ended.send_robust(sender=ImportRun, run_id=run.pk, status=status)
    for receiver, reply in replies:
        if isinstance(reply, Exception):
            logger.error(
                "Import run %s: %r failed after the run ended",
                run.pk,
                receiver,
                exc_info=(type(reply), reply, reply.__traceback__),
            )


class PartFailed(Exception):
    """Another process writing a part of this run stopped with an error."""


def _part_count(run: ImportRun) -> int:
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


def _can_start_processes() -> bool:
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
    with _writing(run, part):
        _execute_part(run, part, progress, main=main)


@contextmanager
def _writing(run: ImportRun, part: Part):
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


def _execute_part(run: ImportRun, part: Part, progress: Callable | None, *, main: bool) -> None:
    statistics = _Statistics(run, enabled=main)

    def write(batch: Batch, prepared: Prepared | None, rewritten: set[str]) -> set[str]:
        if prepared is not None:
            prepared.recheck(rewritten)
        entity, payloads = batch.entity, batch.payloads
        written = _write_batch(
            run, entity, payloads, batch.after, batch.total, prepared=prepared, part=part
        )
        statistics.refresh_if_grown(run)
        if progress:
            progress(run)
        return written

    with (
        _settled_heap(),
        ThreadPoolExecutor(1, thread_name_prefix="import-map") as mapper,
        _Turns() as turns,  # left first: a mapping thread held at a turn is let go
    ):
        # The next batches are checked and mapped (in a thread) while one is written.
        pending = _Pending(write)
        pages = _read_ahead(_pager(run, part)(part.position(run.cursor).at), mapper, turns)
        try:
            for item in _batches(pages, part.position(run.cursor)):
                if isinstance(item, Batch):
                    pending.add(item, Prepared(run, item.entity, item.payloads, mapper, turns))
                    continue
                pending.write_all()
                if isinstance(item, SourceError):
                    _record_source_error(run, item, part)
                else:  # an empty page moves the cursor on
                    with transaction.atomic():
                        _update_run(run, part, after=item)
        except SourceError:
            pending.write_all()  # the source failed on a later page: keep what was read
            raise
        pending.write_all()


class _Pending:
    """Batches read and being prepared, written in order once ``LOOKAHEAD`` more wait.

    Each batch's stored hashes were read when it was added, before the batches
    ahead of it were written; what those wrote is collected for its ``recheck``.
    """

    def __init__(self, write: Callable[[Batch, Prepared, set[str]], set[str]]):
        self.write = write
        self.queue: deque[tuple[Batch, Prepared, set[str]]] = deque()

    def add(self, batch: Batch, prepared: Prepared) -> None:
        self.queue.append((batch, prepared, set()))
        if len(self.queue) > LOOKAHEAD:
            self._write_first()

    def write_all(self) -> None:
        while self.queue:
            self._write_first()

    def _write_first(self) -> None:
        batch, prepared, rewritten = self.queue.popleft()
        written = self.write(batch, prepared, rewritten)
        for _, _, later in self.queue:
            later |= written


class _Turns:
    """Lets the mapping thread run only while the main thread waits.

    Both threads need the interpreter lock to run Python. Batch N+1 is mapped while
    batch N is written, and the main thread spends much of that time waiting for
    PostgreSQL: that is when mapping costs nothing. When the two share the lock
    round-robin instead, the main thread, the one the import waits for, slows down.
    So the mapping thread maps one payload at a time, each when the main thread is
    blocked in a database call (``Connection.wait`` of this connection, once it has
    to wait for the socket) or waiting for the mapped batch itself. On databases
    other than PostgreSQL the threads simply share the lock.
    """

    def __init__(self):
        self._go = threading.Event()
        self._done = False

    def pause(self) -> None:
        """Called by the mapping thread before each payload."""
        while not self._go.is_set():
            self._go.wait()

    @contextmanager
    def waiting(self):
        """The main thread waits (for the database or for the mapping thread)."""
        self._go.set()
        try:
            yield
        finally:
            if not self._done:
                self._go.clear()

    def __enter__(self):
        self._connection = None
        if connection.vendor != "postgresql":
            self._done = True  # no waits to hook: the threads share the lock as usual
            self._go.set()
            return self
        connection.ensure_connection()
        self._connection = connection.connection
        database_wait = self._connection.wait

        def wait(gen, *args, **kwargs):
            try:
                return database_wait(self._blocking(gen), *args, **kwargs)
            finally:
                if not self._done:
                    self._go.clear()

        self._connection.wait = wait
        return self

    def _blocking(self, gen):
        """``gen`` (a psycopg generator), opening the turn when it first waits for the socket.

        Most calls (a row of COPY data put in libpq's buffer) complete without waiting.
        """
        try:
            state = next(gen)
        except StopIteration as stop:
            return stop.value
        self._go.set()
        while True:
            ready = yield state
            try:
                state = gen.send(ready)
            except StopIteration as stop:
                return stop.value

    def __exit__(self, *exc):
        self._done = True
        self._go.set()
        if self._connection is not None:
            del self._connection.wait


@contextmanager
def _settled_heap():
    """Keep the garbage collector off the objects that outlive the run.

    A batch allocates hundreds of thousands of short-lived objects, and every full
    collection would walk all of the process's modules, models and caches again.
    Those are frozen for the run (and thawed after it), and young collections run
    less often; a batch's garbage is mostly freed by reference counting anyway.
    """
    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.freeze()
    gc.set_threshold(max(threshold[0], GC_YOUNG_THRESHOLD), *threshold[1:])
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*threshold)
        gc.unfreeze()


class _Statistics:
    """Keeps the planner's idea of the tables a run grows close to the truth (PostgreSQL).

    Each batch looks its records up by external id, title and name. Planned with the
    statistics of a table a fraction of its real size, those lookups read whole
    tables, once per batch: autovacuum analyses at most once a minute (and may be
    off), while an import can grow a table tenfold in that time. So the tables the
    lookups read are analysed again, on the columns they use, each time this run
    has doubled them: a handful of times in a large run, never in a small one.
    """

    COLUMNS = {
        Work: ["doi", "arxiv_id", "openalex_id", "normalized_title", "merged_into"],
        Author: ["openalex_id", "orcid", "normalized_name", "merged_into"],
        SourceRecord: ["source", "entity", "external_id", "work", "author"],
        Authorship: ["work", "author"],
    }

    def __init__(self, run: ImportRun, *, enabled: bool = True):
        self.enabled = enabled and connection.vendor == "postgresql"
        self.created = run.counters.get("created", 0)
        self.rows = self._work_rows() if self.enabled else 0

    @staticmethod
    def _work_rows() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [Work._meta.db_table]
            )
            row = cursor.fetchone()
        return max(int(row[0]), 0) if row else 0

    def refresh_if_grown(self, run: ImportRun) -> None:
        created = run.counters.get("created", 0)
        if not self.enabled or created - self.created < max(ANALYZE_AFTER, self.rows):
            return
        self.rows += created - self.created
        self.created = created
        try:
            with connection.cursor() as cursor:
                for model, names in self.COLUMNS.items():
                    columns = ", ".join(
                        connection.ops.quote_name(model._meta.get_field(n).column) for n in names
                    )
                    cursor.execute(
                        f"ANALYZE {connection.ops.quote_name(model._meta.db_table)} ({columns})"
                    )
        except DatabaseError:  # e.g. the database user does not own the tables
            logger.warning("Could not analyse the publication tables", exc_info=True)
            self.enabled = False


def _read_ahead(items: Iterator, pool: ThreadPoolExecutor, turns: _Turns) -> Iterator:
    """The items of ``items``, each next one read (and parsed) in ``pool`` meanwhile."""
    end = object()

    def read():
        turns.pause()
        return next(items, end)

    future = pool.submit(read)
    while True:
        with turns.waiting():
            item = future.result()
        if item is end:
            return
        future = pool.submit(read)
        yield item


@dataclass
class Batch:
    """Payloads written in one transaction, with the position to save once they are."""

    entity: str
    payloads: list
    after: Position
    total: int | None


def _batches(pages: Iterator[Page | SourceError], position: Position):
    """Cut pages into batches; an empty page becomes the position after it."""
    size = settings.IMPORT_BATCH_SIZE
    for page in pages:
        if isinstance(page, SourceError):
            yield page
            continue
        payloads = page.payloads
        if not payloads:
            position = Position(page.next_cursor, 0)
            yield position
            continue
        start = position.done
        while start < len(payloads):
            batch = payloads[start : start + size]
            start += len(batch)
            done = start < len(payloads)
            after = Position(position.at, start) if done else Position(page.next_cursor, 0)
            yield Batch(page.entity, batch, after, page.total)
        position = Position(page.next_cursor, 0)


def _write_batch(
    run: ImportRun,
    entity: str,
    payloads: list,
    after: Position,
    total,
    *,
    prepared=None,
    part: Part = WHOLE,
) -> set[str]:
    """Write one batch with the position after it; return the external ids it wrote.

    A batch that loses a deadlock to another writer is written again from the start.
    """
    prepared = prepared or Prepared(run, entity, payloads)
    for attempt in range(1, RETRIES + 1):
        try:
            with transaction.atomic():
                _batch_settings()
                changed, ahead, mapped, problems = prepared.result()
                problems = list(problems)
                result = _ingest_isolating_bad_records(run, entity, mapped, problems, ahead)
                result.unchanged += len(payloads) - len(changed)
                problems_record(problems, run=run)
                _update_run(
                    run, part, result=result, processed=len(payloads), problems=len(problems),
                    after=after, total=total,
                )  # fmt: skip
                if result.author_ids:
                    _queue_follow_up(sorted(result.author_ids), sorted(result.work_ids))
            return prepared.external_ids(changed, mapped)
        except DatabaseError as exc:
            if attempt == RETRIES or not _lost_to_another_writer(exc):
                raise
            logger.warning("Run %s: a batch met another writer's locks; writing it again", run.pk)
            prepared.forget_reads()
    raise AssertionError("unreachable")


def _lost_to_another_writer(exc: BaseException) -> bool:
    """A deadlock or serialization failure: the transaction can simply be tried again."""
    cause = exc.__cause__ or exc
    return getattr(cause, "sqlstate", None) in {"40P01", "40001"}


def _batch_settings() -> None:
    """Settings for the rest of a batch's transaction (PostgreSQL).

    No JIT compilation: a batch's lookups probe an index a thousand times, which
    the planner prices as one costly query and compiles, taking longer than running
    it. No waiting for the commit to reach the disk: should the server crash just
    after, the batch is lost together with the cursor saved with it, so the run
    resumes before it and writes it again.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off; SET LOCAL synchronous_commit = off")


def _identity(entity: str, payload) -> tuple[str, str, str] | None:
    """(source, entity, external id) of a payload as its mapper will key it, if that is cheap."""
    if not isinstance(payload, dict):
        return None
    if entity == "arxiv":
        arxiv_id = payload.get("arxiv_id")
        return (Source.ARXIV, SourceRecord.Entity.WORK, arxiv_id) if arxiv_id else None
    kind = {"work": SourceRecord.Entity.WORK, "author": SourceRecord.Entity.AUTHOR}.get(entity)
    openalex_id = normalize_openalex_id(payload.get("id")) if kind else None
    return (Source.OPENALEX, kind, openalex_id) if openalex_id else None


class Prepared:
    """A batch checked against what is stored, hashed and mapped, ready to be written.

    The stored hashes are read here, in the caller's thread; hashing and mapping run
    in ``mapper`` when given (a payload unchanged since it was stored is not
    mapped). A batch prepared while the one before it is still being written
    must be rechecked (``recheck``) with what that one wrote before use.
    """

    def __init__(self, run: ImportRun, entity: str, payloads: list, mapper=None, turns=None):
        self.run, self.entity, self.turns = run, entity, turns
        self.keyed = [(_identity(entity, p), p) for p in payloads]
        ids = {key[2] for key, _ in self.keyed if key}
        self.source, self.stored, self.ahead = None, {}, Ahead()
        if ids:
            self.source, kind = next((key[0], key[1]) for key, _ in self.keyed if key)
            self.stored = stored_records(self.source, kind, ids)
            if kind == SourceRecord.Entity.WORK:  # what writing the works would read again
                self.ahead.checked = {(self.source, i) for i in ids}
                self.ahead.stored = {(self.source, i): row for i, row in self.stored.items()}
        self.future = mapper.submit(self._prepare) if mapper else None
        self.outcome = None if mapper else self._prepare()

    def _prepare(self):
        pause = self.turns.pause if self.turns else None
        changed, ahead, unreadable, quarantined = [], self.ahead, [], set()
        for key, payload in self.keyed:
            if pause:
                pause()
            if key is None:
                changed.append(payload)
                continue
            try:
                digest = hashed(payload)
            except ValueError as exc:  # e.g. NaN next to an integer past 64 bits
                unreadable.append(_problem(self.run, payload, f"Could not read this record: {exc}"))
                changed.append(payload)  # counted as a problem, not as unchanged
                quarantined.add(id(payload))
                continue
            row = self.stored.get(key[2])
            if not (row and row.linked and row.content_hash == digest.digest):
                changed.append(payload)
                ahead.hashes[id(payload)] = digest
        readable = [p for p in changed if id(p) not in quarantined]
        mapped, problems = _map_all(self.run, self.entity, readable, pause)
        problems = unreadable + problems
        if self.entity in WORK_ENTITIES:
            for _, record in mapped:
                if pause:
                    pause()
                ahead.drafts[id(record)] = new_work(record)
        return changed, ahead, mapped, problems

    def recheck(self, rewritten: set[str]) -> None:
        """Payloads found unchanged whose record the previous batch rewrote are written too."""
        if not rewritten:
            return
        changed, ahead, mapped, problems = self.result()
        for key in {(self.source, external_id) for external_id in rewritten}:
            ahead.checked.discard(key)  # read before the batch before wrote them: read again
            ahead.stored.pop(key, None)
        seen = {id(p) for p in changed}
        again = [p for key, p in self.keyed if key and key[2] in rewritten and id(p) not in seen]
        if again:
            more, more_problems = _map_all(self.run, self.entity, again)
            self.outcome = (changed + again, ahead, mapped + more, problems + more_problems)

    def result(self):
        """(changed payloads, an ``Ahead``, (payload, record) pairs, problems)."""
        if self.outcome is None:
            if self.turns:
                with self.turns.waiting():
                    self.outcome = self.future.result()
            else:
                self.outcome = self.future.result()
        return self.outcome

    def forget_reads(self) -> None:
        """Before writing the batch again: what was read from the database may have changed."""
        self.result()[1].forget_reads()

    def external_ids(self, changed: list, mapped: list) -> set[str]:
        keys = {id(p): key[2] for key, p in self.keyed if key}
        ids = {keys[id(p)] for p in changed if id(p) in keys}
        return ids | {getattr(record, "external_id", "") for _, record in mapped}


def _update_run(
    run: ImportRun,
    part: Part,
    *,
    result: BatchResult | None = None,
    processed: int = 0,
    problems: int = 0,
    after: Position | None = None,
    total=None,
) -> None:
    """Add a batch's counts to the run and save the position after it, in the caller's transaction.

    The run's row is locked and read first, so parts written by other processes
    add up. The lock is ``FOR NO KEY UPDATE``: the batch's source records already
    hold a key share of that row (their foreign key), and two writers each asking
    for a full ``FOR UPDATE`` on top of their key share would deadlock. On
    PostgreSQL the batch's deferred foreign-key checks run before the lock is
    taken, so the lock is held for as short a time as possible. A cancellation
    raises ``RunCancelled``, which rolls the batch back with it.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    row = (
        ImportRun.objects.select_for_update(no_key=True)  # the batch's rows hold a key share
        .filter(pk=run.pk)
        .values("status", "counters", "processed", "cursor", "total")
        .first()
    )
    if row is None or row["status"] == ImportRun.Status.CANCELLED:
        run.status = ImportRun.Status.CANCELLED
        raise RunCancelled
    counters = {key: (row["counters"] or {}).get(key, 0) for key in COUNTERS}
    if result is not None:
        counters["created"] += result.created
        counters["updated"] += result.updated
        counters["unchanged"] += result.unchanged
    counters["problems"] += problems
    processed += row["processed"]
    total = row["total"] if total is None else total
    values = {
        "counters": counters,
        "processed": processed,
        "cursor": row["cursor"] if after is None else part.cursor(row["cursor"], after),
        # A source's count covers one step of a run (one DOI, an author's works after the
        # author, one file) and can drift while it is read: never less than what is done.
        "total": None if total is None else max(total, processed),
        "heartbeat_at": timezone.now(),  # the worker is alive (see ``dispatch``)
    }
    ImportRun.objects.filter(pk=run.pk).update(**values)
    for name, value in values.items():
        setattr(run, name, value)


def _queue_follow_up(author_ids: list[int], work_ids: list[int]) -> None:
    from publications import tasks

    def follow_up() -> None:
        tasks.refresh_author_metrics.delay(author_ids)
        signals.authors_changed.send(sender=ImportRun, author_ids=author_ids, work_ids=work_ids)

    transaction.on_commit(follow_up)


def _finish(run: ImportRun, status: str, error: str = "") -> None:
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
    if status == ImportRun.Status.SUCCEEDED:  # the whole source was read: done is the total
        ImportRun.objects.filter(pk=run.pk).update(total=F("processed"))
        run.refresh_from_db(fields=["processed", "total"])


# Mapping and quarantine ------------------------------------------------------


def _mapper(entity: str):
    from publications.sources.arxiv import mapping as arxiv
    from publications.sources.openalex import entities, mapping

    return {
        "work": mapping.map_work,
        "arxiv": arxiv.map_entry,
        "author": entities.map_author,
        "institution": entities.map_institution,
        "topic": entities.map_topic,
        "concept": entities.map_topic,
        "venue": entities.map_venue,
    }.get(entity)


def _external_id(payload) -> str:
    if isinstance(payload, dict):
        return quarantine.safe_id(payload.get("id") or payload.get("arxiv_id"))
    return ""


def _problem(run: ImportRun, payload, error: str) -> ImportProblem:
    """A problem keeping ``payload`` whole, in whichever column can store it."""
    source = Source.ARXIV if run.source == Source.ARXIV else Source.OPENALEX
    if isinstance(payload, dict) and "arxiv_id" in payload:
        source = Source.ARXIV
    kept, raw, note = quarantine.storable(payload)
    return ImportProblem(
        run=run,
        source=source,
        external_id=_external_id(payload),
        payload=kept,
        raw_payload=raw,
        error=quarantine.with_note(error, note, raw),
    )


def _look_up_institutions(run: ImportRun) -> None:
    """Fill the homepages and RORs of the institutions the run saw (never fails the run)."""
    from publications.institutions import institutions_look_up

    try:
        institutions_look_up(run=run)
    except DatabaseError:
        raise
    except Exception:
        logger.exception("Run %s: looking up its institutions failed", run.pk)


def problems_record(problems: list[ImportProblem], *, run: ImportRun | None) -> None:
    """Keep ``problems``: a bad record already open counts once more, others are added.

    Importing the same file twice thus leaves one open problem per bad record,
    with how many times it was seen and the run that saw it last.
    """
    now = timezone.now()
    fresh: dict[str, ImportProblem] = {}
    for problem in problems:
        problem.fingerprint = problem.fingerprint or quarantine.fingerprint(
            problem.source, problem.external_id, problem.payload, problem.raw_payload
        )
        problem.last_run, problem.last_seen_at = run, now
        if problem.fingerprint in fresh:
            fresh[problem.fingerprint].seen_count += 1
        else:
            fresh[problem.fingerprint] = problem
    if not fresh:
        return
    open_ones = ImportProblem.objects.select_for_update().filter(
        status=ImportProblem.Status.OPEN, fingerprint__in=list(fresh)
    )
    for known in open_ones:
        seen = fresh.pop(known.fingerprint)
        known.seen_count += seen.seen_count
        known.last_run, known.last_seen_at = run, now
        known.error, known.payload, known.raw_payload = seen.error, seen.payload, seen.raw_payload
        known.save(
            update_fields=["seen_count", "last_run", "last_seen_at", "error", "payload",
                           "raw_payload"]
        )  # fmt: skip
    # Another process may add the same problem meanwhile: its row stands for both.
    ImportProblem.objects.bulk_create(list(fresh.values()), ignore_conflicts=True)


def _map_all(run: ImportRun, entity: str, payloads: list, pause=None):
    mapper = _mapper(entity)
    mapped, problems = [], []
    for payload in payloads:
        if pause:
            pause()
        if mapper is None:
            problems.append(_problem(run, payload, f"Records of kind '{entity}' are not imported."))
            continue
        try:
            mapped.append((payload, mapper(payload)))
        except MappingError as exc:
            problems.append(_problem(run, payload, str(exc)))
        except Exception as exc:  # a payload shaped unlike anything seen: keep it for staff
            logger.exception("Unexpected error mapping a %s record", entity)
            problems.append(_problem(run, payload, f"Could not read this record: {exc!r}"))
    return mapped, problems


def _ingest(run: ImportRun, entity: str, mapped: list, ahead=None) -> BatchResult:
    if entity in WORK_ENTITIES:
        return ingest_works(mapped, run=run, ahead=ahead)
    if entity == "author":
        return ingest_authors(mapped, run=run)
    if entity == "institution":
        return ingest_institutions(mapped)
    result = BatchResult()
    if entity in {"topic", "concept"}:
        result.updated = len(upsert_topics(ref for _, ref in mapped))
    elif entity == "venue":
        result.updated = len(upsert_venues(ref for _, ref in mapped))
    return result


def import_payload(*, run: ImportRun | None, entity: str, payload) -> BatchResult:
    """Map and write one stored payload (a retried ImportProblem); raise when either step fails."""
    mapper = _mapper(entity)
    if mapper is None:
        raise MappingError(f"Records of kind '{entity}' are not imported.")
    record = mapper(payload)
    with transaction.atomic():
        result = _ingest(run, entity, [(payload, record)])
        if result.author_ids:
            _queue_follow_up(sorted(result.author_ids), sorted(result.work_ids))
    return result


def _ingest_isolating_bad_records(run, entity, mapped, problems, ahead=None) -> BatchResult:
    """Write the batch; if it fails, write record by record and quarantine the ones that fail.

    A deadlock with another writer is no fault of a record: it is raised, for the
    whole batch to be written again.
    """
    try:
        with transaction.atomic():
            return _ingest(run, entity, mapped, ahead)
    except Exception as exc:
        if _lost_to_another_writer(exc):
            raise
        logger.warning("A batch of run %s failed; retrying its records one by one", run.pk)
    if ahead is not None:  # e.g. another process stored one of its records meanwhile
        ahead.forget_reads()
    total = BatchResult()
    for payload, record in mapped:
        try:
            with transaction.atomic():
                total.add(_ingest(run, entity, [(payload, record)], ahead))
        except Exception as exc:
            if _lost_to_another_writer(exc):
                raise
            logger.exception(
                "Record %s of run %s could not be written", _external_id(payload), run.pk
            )
            problems.append(_problem(run, payload, f"Could not be written: {exc}"))
    return total


def _record_source_error(run: ImportRun, error: SourceError, part: Part = WHOLE) -> None:
    status = f" (HTTP {error.status})" if error.status and "HTTP" not in str(error) else ""
    raw, note = quarantine.storable_text(error.body or "")
    with transaction.atomic():
        problem = ImportProblem(
            run=run,
            source=run.source if run.source in {Source.OPENALEX, Source.ARXIV} else Source.OPENALEX,
            raw_payload=raw,
            error=quarantine.with_note(f"{error}{status}", note, raw),
        )
        # A line of a recorded file that cannot be read is known by what it holds, wherever
        # it stood; an error answer (or a file that cannot be read at all) by its error too.
        by_error = "" if error.status is None and raw else problem.error
        problem.fingerprint = quarantine.fingerprint(problem.source, "", None, raw, error=by_error)
        problems_record([problem], run=run)
        after = Position(error.resume_at) if error.resume_at is not None else None
        with suppress(RunCancelled):  # the problem is kept all the same
            _update_run(run, part, problems=1, after=after)


def import_run_cancel(*, run: ImportRun) -> None:
    if run.status in {ImportRun.Status.WAITING, ImportRun.Status.QUEUED, ImportRun.Status.RUNNING}:
        _finish(run, ImportRun.Status.CANCELLED, "Cancelled by staff.")


def import_run_retry(*, run: ImportRun, background: bool = False) -> ImportRun:
    """Queue a failed or cancelled run again; it resumes from its saved cursor."""
    run.status = ImportRun.Status.QUEUED
    run.finished_at = None
    run.error = ""
    run.save(update_fields=["status", "finished_at", "error"])
    import_run_queue(run=run, background=background)
    return run

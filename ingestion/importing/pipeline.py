"""The batch pipeline: one part of a run, page by page, batch by batch.

A part pages through its source from its saved position, maps each payload (a
payload that cannot be mapped becomes an ImportProblem and the page goes on)
and writes each batch in one transaction together with the new position and
counters, so a worker killed mid-run resumes where it stopped and writes
nothing twice.

Batches are written in order by one connection, but the work that needs no
database overlaps the writing: while batch N is written, a thread reads the next
page, hashes batches N+1 and N+2 and maps their changed payloads (their stored
hashes were read when they were read). Whatever the batches before them rewrote
is checked again before they are written, so the result is the one a strictly
sequential run would give. How the two threads take turns, and the process and
session settings that make this fast, are in ``tuning``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from catalogue.models import ImportRun
from config.contention import again_when_lost
from ingestion.importing import positions, runs, tuning
from ingestion.importing.ingesting import follow_up_queue, ingest_isolating_bad_records
from ingestion.importing.positions import WHOLE, Part, Position
from ingestion.importing.preparing import PreparedBatch
from ingestion.importing.problems import problems_record, source_error_record
from ingestion.ingest.batch import BatchResult
from ingestion.records import Page, SourceError

LOOKAHEAD = 2  # batches prepared ahead of the one being written


def part_write(run: ImportRun, part: Part, progress: Callable | None, *, main: bool) -> None:
    statistics = tuning.PlannerStatistics(run, enabled=main)

    def write(batch: Batch, prepared: PreparedBatch | None, rewritten: set[str]) -> set[str]:
        if prepared is not None:
            prepared.recheck(rewritten)
        entity, payloads = batch.entity, batch.payloads
        written = write_batch(
            run, entity, payloads, batch.after, batch.total, prepared=prepared, part=part
        )
        statistics.refresh_if_grown(run)
        if progress:
            progress(run)
        return written

    with (
        tuning.settled_heap(),
        ThreadPoolExecutor(1, thread_name_prefix="import-map") as mapper,
        tuning.MappingTurns() as turns,  # left first: a mapping thread held at a turn is let go
    ):
        # The next batches are checked and mapped (in a thread) while one is written.
        queue = WriteQueue(write)
        pages = read_ahead(positions.pager(run, part)(part.position(run.cursor).at), mapper, turns)
        try:
            for item in batches(pages, part.position(run.cursor)):
                if isinstance(item, Batch):
                    queue.add(item, PreparedBatch(run, item.entity, item.payloads, mapper, turns))
                    continue
                queue.write_all()
                if isinstance(item, SourceError):
                    source_error_record(run, item, part)
                else:  # an empty page moves the cursor on
                    with transaction.atomic():
                        runs.import_run_progress_save(run, part, after=item)
        except SourceError:
            queue.write_all()  # the source failed on a later page: keep what was read
            raise
        queue.write_all()
    statistics.refresh_if_grown(run, end=True)


class WriteQueue:
    """Batches read and being prepared, written in order once ``LOOKAHEAD`` more wait.

    Each batch's stored hashes were read when it was added, before the batches
    ahead of it were written; what those wrote is collected for its ``recheck``.
    """

    def __init__(self, write: Callable[[Batch, PreparedBatch, set[str]], set[str]]):
        self.write = write
        self.queue: deque[tuple[Batch, PreparedBatch, set[str]]] = deque()

    def add(self, batch: Batch, prepared: PreparedBatch) -> None:
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


def read_ahead(items: Iterator, pool: ThreadPoolExecutor, turns: tuning.MappingTurns) -> Iterator:
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


def batches(pages: Iterator[Page | SourceError], position: Position):
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


def write_batch(
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
    What follows a batch (figures, announcements, name blocks) is sent once it has
    committed, outside those attempts: a batch is never written twice.
    """
    prepared = prepared or PreparedBatch(run, entity, payloads)

    def write_once() -> BatchResult:
        with transaction.atomic():
            tuning.batch_settings()
            changed, ahead, mapped, problems = prepared.result()
            problems = list(problems)
            result = ingest_isolating_bad_records(run, entity, mapped, problems, ahead)
            result.unchanged += prepared.unchanged
            prepared.keep_line_digests()
            problems_record(problems, run=run)
            runs.import_run_progress_save(
                run,
                part,
                result=result,
                processed=len(payloads),
                problems=len(problems),
                after=after,
                total=total,
            )
        return result

    result = again_when_lost(
        write_once,
        what=f"Run {run.pk}: a batch",
        before_again=prepared.forget_reads,  # what was read from the database may have changed
    )
    if result.author_ids:
        follow_up_queue(sorted(result.author_ids), sorted(result.work_ids), result.name_blocks)
    changed, _, mapped, _ = prepared.result()
    return prepared.external_ids(changed, mapped)

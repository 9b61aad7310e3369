"""Where a run stands in its source, and the pages it reads from there.

A run in one part keeps one ``Position`` as its cursor; a run written in parts
keeps one per part. Recorded files are read record by record from a position,
so a run resumes at the same record whatever batch size it resumes with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from catalogue.models import ImportRun, Source
from ingestion.records import Page, SourceError
from ingestion.sources import files


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


def pager(run: ImportRun, part: Part) -> Callable[[object], Iterator[Page | SourceError]]:
    if run.kind == ImportRun.Kind.FILE:
        return lambda at: file_pages(run.parameters["paths"], at, part, lazy=True)
    if run.source == Source.OPENALEX:
        from ingestion.sources.openalex import fetching as module
    else:
        from ingestion.sources.arxiv import fetching as module
    return lambda at: module.pages(run.kind, run.parameters, cursor=at)


def file_pages(
    paths: list[str], at, part: Part = WHOLE, *, lazy: bool = False
) -> Iterator[Page | SourceError]:
    """Pages from recorded files (``part`` of them), from the position ``at`` on.

    With ``lazy``, works whose lines are not parsed yet come as ``RawLine`` (see
    ``files.read_file``): a line counts as a record either way.

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
        for item in files.read_file(Path(path), part, lazy=lazy):
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

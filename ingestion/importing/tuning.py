"""Low-level tuning of an import: thread hand-off, garbage collection, planner statistics.

Nothing here changes what an import writes, only how fast: the mapping thread
runs while the writing thread waits for PostgreSQL, the garbage collector keeps
off the objects that outlive a run, the planner's statistics follow tables that
a run grows, and each batch's transaction skips what it does not need.
"""

from __future__ import annotations

import gc
import sys
import threading
from contextlib import contextmanager

from django.db import connection

from catalogue.models import (
    Author,
    AuthorInstitution,
    Authorship,
    ImportRun,
    SourceRecord,
    Work,
    WorkSearch,
    WorkTopic,
)
from catalogue.planner import analyse

GC_YOUNG_THRESHOLD = 200_000  # allocations between young collections during a run (default 700)
SWITCH_INTERVAL = 0.0002  # seconds the mapping thread may hold the GIL while a query returns
ANALYZE_AFTER = 1000  # new works before the lookup tables are first analysed during a run


class MappingTurns:
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
def settled_heap():
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


class PlannerStatistics:
    """Keeps the planner's idea of the tables a run grows close to the truth (PostgreSQL).

    Each batch looks its records up by external id, title and name. Planned with the
    statistics of a table a fraction of its real size, those lookups read whole
    tables, once per batch: autovacuum analyses at most once a minute (and may be
    off), while an import can grow a table tenfold in that time. So the tables the
    lookups read are analysed again, on the columns they use, each time this run
    has doubled them: a handful of times in a large run, never in a small one,
    and once more at the end of a run that added ``ANALYZE_AFTER`` works since.
    The tables the search and researcher pages read are analysed with them: a
    search planned on a match estimate forty times too small reads every match,
    and the trust pass, planned on a never-analysed affiliation table, read it
    whole for each researcher (100 researchers a second at a million works
    instead of 1,600).
    """

    COLUMNS = {
        Work: ["doi", "arxiv_id", "openalex_id", "normalized_title", "merged_into"],
        Author: ["openalex_id", "orcid", "normalized_name", "merged_into"],
        SourceRecord: ["source", "entity", "external_id", "work", "author"],
        Authorship: ["work", "author"],
        WorkSearch: ["search_vector", "cited_by_count", "visible", "type", "publication_year"],
        WorkTopic: ["work", "topic"],
        AuthorInstitution: ["author", "institution"],
        Authorship.institutions.through: ["authorship", "institution"],
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

    def refresh_if_grown(self, run: ImportRun, *, end: bool = False) -> None:
        created = run.counters.get("created", 0)
        enough = ANALYZE_AFTER if end else max(ANALYZE_AFTER, self.rows)
        if not self.enabled or created - self.created < enough:
            return
        self.rows += created - self.created
        self.created = created
        self.enabled = analyse(self.COLUMNS)


def batch_settings() -> None:
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

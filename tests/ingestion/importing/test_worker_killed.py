"""A real worker killed with SIGKILL mid-run: another worker resumes the run by itself.

Real processes on PostgreSQL and a Redis of the test's own: beat (watching
imports every second), a first worker that is killed while it writes a
generated snapshot, and a second worker started afterwards. Nobody
cancels or retries: the run's heartbeat goes stale, ``watch_imports`` sends it
again, and the second worker finishes it from its cursor. What it wrote is what
a clean import of the same snapshot in one process writes: no duplicates,
nothing lost.

The run is written in one process, or in two parts (the worker's process and
one it started, which stops once its parent is gone). The snapshot holds a
journal article and its preprint that fall to different parts: one process
merges them into one work, and so must the parts, however their batches meet.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import kombu.pools
import pytest
import redis
from django.core.management import call_command
from django.db import connection

from catalogue.models import Authorship, ImportRun, SourceRecord, Work
from config.celery import app as celery_app
from devtools.corpus import write_corpus
from tests.ingestion.importing.import_files import run_files, written
from tests.own_redis import own_redis  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[3]
WORKS = 8000
# Seconds; generous, for a machine busy with other work. Waiting longer proves no less.
UNDER_WAY_WITHIN, FINISHED_WITHIN = 300, 1200

pytestmark = [
    pytest.mark.slow,
    pytest.mark.services,
    pytest.mark.real_worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="a worker in its own process needs a shared database (DATABASE_URL: PostgreSQL)",
    ),
]


def _environment(redis_url: str, parts: int) -> dict:
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=redis_url,
        IMPORT_BATCH_SIZE="100",
        IMPORT_PARTS=str(parts),
        IMPORT_PARTS_MIN_BYTES="0",  # a small snapshot is written in parts too
        IMPORT_HEARTBEAT_EVERY="1",
        IMPORT_STALLED_AFTER="4",
        IMPORT_WATCH_EVERY="1",
    )
    return env


def _celery(env: dict, log: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel=WARNING"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def _worker(env: dict, log: Path) -> subprocess.Popen:
    return _celery(
        env,
        log,
        "worker",
        # Imports and the watcher that resumes them. The follow-up work each batch asks
        # for (the compute queue) waits for another worker, as it may in production:
        # here it stays queued, and goes with the test's Redis.
        "-Q",
        "imports,watch",
        "--pool=solo",
        "--without-heartbeat",
        "--without-mingle",
        "--without-gossip",
    )


@contextmanager
def _follow_ups_dropped(url: str):
    """The clean import's follow-up tasks are sent to the test's Redis and dropped."""
    conf = celery_app.conf
    saved = conf.broker_url, conf.task_always_eager

    def close() -> None:
        if celery_app._pool is not None:
            celery_app._pool.force_close_all()
            celery_app._pool = None
        celery_app.amqp._producer_pool = None
        kombu.pools.reset()  # kombu's shared pools too, or a later send finds them closed

    kombu.pools.reset()  # kombu's shared pools too, or a later send finds them closed

    close()
    conf.broker_url, conf.task_always_eager = url, False
    try:
        yield
    finally:
        close()
        conf.broker_url, conf.task_always_eager = saved
        redis.Redis.from_url(url).flushall()


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def by_records() -> dict:
    """What an import wrote, told apart by the records each work holds.

    Which record of two that one work holds gives the work its OpenAlex id depends
    on which was written last, which parts do not fix; the records do not.
    """
    records = {}
    for work_id, external_id in SourceRecord.objects.values_list("work_id", "external_id"):
        records.setdefault(work_id, set()).add(external_id)
    key = {work_id: frozenset(ids) for work_id, ids in records.items()}
    return {
        "works": {key.get(pk, frozenset()) for pk in Work.objects.values_list("pk", flat=True)},
        "authorships": set(
            (key.get(work_id), author, position)
            for work_id, author, position in Authorship.objects.values_list(
                "work_id", "author__openalex_id", "position"
            )
        ),
    }


def _byline(external_id: str) -> set[tuple[str, int]]:
    """(author's OpenAlex id, position) as one stored record gives its authors."""
    payload = SourceRecord.objects.get(external_id=external_id).payload
    return {
        (a["author"]["id"].rsplit("/", 1)[-1], position)
        for position, a in enumerate(payload["authorships"])
    }


@pytest.mark.parametrize("parts", [1, 2], ids=["one process", "two parts"])
def test_a_run_whose_worker_was_killed_is_resumed_by_another_worker(
    own_redis,  # noqa: F811
    tmp_path,
    settings,
    parts,
):
    snapshot = tmp_path / "works.jsonl"
    write_corpus(snapshot, WORKS, seed=11)
    settings.IMPORT_PARTS = 1
    with _follow_ups_dropped(own_redis.url):
        clean = run_files(snapshot)
    assert clean.status == ImportRun.Status.SUCCEEDED, clean.error
    expected = written()
    expected_grouping = by_records()
    expected_records = SourceRecord.objects.count()
    assert len(expected["works"]) < expected_records  # records merged into one work
    call_command("flush", interactive=False, verbosity=0)

    # Asked for while no worker ran: beat's watcher sends it.
    run = ImportRun.objects.create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(snapshot)]},
        status=ImportRun.Status.WAITING,
    )
    env = _environment(own_redis.url, parts)
    logs = {name: tmp_path / f"{name}.log" for name in ("beat", "first", "second")}
    beat = _celery(env, logs["beat"], "beat", "--schedule", str(tmp_path / "beat-schedule"))
    first = _worker(env, logs["first"])
    second = None
    try:

        def well_under_way() -> bool:
            run.refresh_from_db()
            return run.status == ImportRun.Status.RUNNING and run.processed >= 1000

        assert _wait_for(well_under_way, UNDER_WAY_WITHIN), logs["first"].read_text()
        assert run.processed < WORKS, "the snapshot was written before the worker could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = run.processed

        second = _worker(env, logs["second"])

        def finished() -> bool:
            run.refresh_from_db()
            return run.status in {ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED}

        if not _wait_for(finished, FINISHED_WITHIN):
            pytest.fail(
                f"the run did not finish (status {run.status}, processed {run.processed});\n"
                f"second worker:\n{logs['second'].read_text()}\nbeat:\n{logs['beat'].read_text()}"
            )
    finally:
        for process in (first, second, beat):
            if process is not None:
                _stop(process)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert killed_at < run.processed == WORKS
    assert run.counters == clean.counters  # every record counted once
    # The same works, each once: no duplicates, none lost.
    assert Work.objects.count() == len(expected["works"])
    assert SourceRecord.objects.count() == expected_records
    found = by_records()
    assert found["works"] == expected_grouping["works"]
    if parts == 1:  # one process writes the records of a work in file order, as the clean one
        assert Authorship.objects.count() == len(expected["authorships"])
        assert found["authorships"] == expected_grouping["authorships"]
        return
    assert len(run.cursor["parts"]) == parts
    # Two records of one work in different parts are written in the order the parts
    # reach them, and the byline is the last one's: the works of one record are as
    # the clean import wrote them, a merged work has the byline of one of its records.
    single = {a for a in found["authorships"] if len(a[0]) == 1}
    assert single == {a for a in expected_grouping["authorships"] if len(a[0]) == 1}
    for records in {a[0] for a in found["authorships"]} - {a[0] for a in single}:
        byline = {
            (author, position) for work, author, position in found["authorships"] if work == records
        }
        assert byline in [_byline(external_id) for external_id in records]

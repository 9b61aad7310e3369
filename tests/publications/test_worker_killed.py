"""A real worker killed with SIGKILL mid-run: another worker resumes the run by itself.

Real processes on PostgreSQL and a Redis of the test's own: beat (watching
imports every second), a first worker that is killed while it writes a
generated snapshot, and a second worker started afterwards. Nobody
cancels or retries: the run's heartbeat goes stale, ``watch_imports`` sends it
again, and the second worker finishes it from its cursor. What it wrote is what
a clean import of the same snapshot writes: no duplicates, nothing lost.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.core.management import call_command
from django.db import connection

from config.celery import app as celery_app
from publications.corpus import write_corpus
from publications.models import Authorship, ImportRun, SourceRecord, Work
from tests.own_redis import own_redis  # noqa: F401 - a fixture
from tests.publications.test_import_parts import run_files, written

ROOT = Path(__file__).resolve().parents[2]
WORKS = 8000

pytestmark = [
    pytest.mark.services,
    pytest.mark.real_worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="a worker in its own process needs a shared database (DATABASE_URL: PostgreSQL)",
    ),
]


def _environment(redis_url: str) -> dict:
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        REDIS_URL=redis_url,
        IMPORT_BATCH_SIZE="100",
        IMPORT_PARTS="1",  # as the clean import: what differs comes from the kill alone
        IMPORT_HEARTBEAT_EVERY="1",
        IMPORT_STALLED_AFTER="4",
        IMPORT_WATCH_EVERY="1",
    )
    return env


def _celery(env: dict, log: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", *args, "--loglevel=WARNING"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip


def _worker(env: dict, log: Path) -> subprocess.Popen:
    return _celery(
        env, log, "worker", "-Q", "imports,compute", "--pool=solo",
        "--without-heartbeat", "--without-mingle", "--without-gossip",
    )  # fmt: skip


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


def test_a_run_whose_worker_was_killed_is_resumed_by_another_worker(
    own_redis,  # noqa: F811
    tmp_path,
    settings,
):
    snapshot = tmp_path / "works.jsonl"
    write_corpus(snapshot, WORKS, seed=11)
    settings.IMPORT_PARTS = 1
    with _follow_ups_dropped(own_redis.url):
        clean = run_files(snapshot)
    assert clean.status == ImportRun.Status.SUCCEEDED, clean.error
    expected = written()
    expected_records = SourceRecord.objects.count()
    call_command("flush", interactive=False, verbosity=0)

    # Asked for while no worker ran: beat's watcher sends it.
    run = ImportRun.objects.create(
        source="openalex", kind="file", parameters={"paths": [str(snapshot)]},
        status=ImportRun.Status.WAITING,
    )  # fmt: skip
    env = _environment(own_redis.url)
    logs = {name: tmp_path / f"{name}.log" for name in ("beat", "first", "second")}
    beat = _celery(env, logs["beat"], "beat", "--schedule", str(tmp_path / "beat-schedule"))
    first = _worker(env, logs["first"])
    second = None
    try:

        def well_under_way() -> bool:
            run.refresh_from_db()
            return run.status == ImportRun.Status.RUNNING and run.processed >= 1000

        assert _wait_for(well_under_way, 120), logs["first"].read_text()
        assert run.processed < WORKS, "the snapshot was written before the worker could be killed"
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = run.processed

        second = _worker(env, logs["second"])

        def finished() -> bool:
            run.refresh_from_db()
            return run.status in {ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED}

        if not _wait_for(finished, 240):
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
    # The same works and authorships, each once: no duplicates, none lost.
    assert Work.objects.count() == len(expected["works"])
    assert Authorship.objects.count() == len(expected["authorships"])
    assert SourceRecord.objects.count() == expected_records
    found = written()
    assert set(found["works"]) == set(expected["works"])
    assert {a[:3] for a in found["authorships"]} == {a[:3] for a in expected["authorships"]}

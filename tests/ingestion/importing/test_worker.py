"""A real Celery worker on the real Redis and PostgreSQL carries out an import end to end."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from catalogue.models import AuthorMetrics, ImportRun, Work
from config.celery import app as celery_app
from ingestion.importing.dispatch import import_run_create

ROOT = Path(__file__).resolve().parents[3]
DEMO_WORKS = ROOT / "devtools" / "demo" / "openalex" / "works.json"

pytestmark = [
    pytest.mark.services,
    pytest.mark.real_worker,
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def worker():
    if not settings.REDIS_URL or connection.vendor != "postgresql":
        pytest.skip(
            "needs DATABASE_URL (PostgreSQL) and REDIS_URL: a worker runs in its own process"
        )
    celery_app.control.purge()
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["IMPORT_PARTS_MIN_BYTES"] = "0"  # the worker starts a process for a second part too
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            ",".join(celery_app.conf.task_queues),  # every queue the site sends to
            "--pool=solo",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def wait_for(predicate, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


@pytest.mark.slow
def test_a_queued_import_is_carried_out_by_a_real_worker(worker):
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(DEMO_WORKS)]}
    )  # autocommit: the task is sent to Redis at once

    def finished():
        run.refresh_from_db()
        return run.status in {ImportRun.Status.SUCCEEDED, ImportRun.Status.FAILED}

    if not wait_for(finished):
        worker.terminate()
        pytest.fail(f"the worker did not finish the run; its log:\n{worker.communicate()[0]}")
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.counters["created"] == Work.objects.count() > 0
    # The follow-up metrics task ran on the compute queue of the same worker.
    assert wait_for(lambda: AuthorMetrics.objects.filter(works_count__gt=0).exists())

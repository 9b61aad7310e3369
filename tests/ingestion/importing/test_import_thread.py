"""The embedded run's import thread: a locked database is waited for, a run never stays queued."""

from pathlib import Path

import pytest
from django.db import OperationalError

from catalogue.models import ImportRun
from ingestion.importing import dispatch, execution
from tests.ingestion.importing.doubles import fails_on_call

pytestmark = pytest.mark.django_db(transaction=True)

DEMO = Path(__file__).parents[3] / "devtools" / "demo" / "openalex" / "authors.json"


def queued_run() -> ImportRun:
    return dispatch.import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(DEMO)]}, queue=False
    )


def test_a_locked_database_is_waited_for_and_the_run_goes_on(monkeypatch):
    run = queued_run()
    locked = fails_on_call(
        execution.import_run_execute, 1, OperationalError("database table is locked")
    )
    monkeypatch.setattr(execution, "import_run_execute", locked)
    dispatch.import_run_start_here(run_id=run.pk).join(timeout=60)
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.counters


def test_a_run_its_thread_cannot_start_is_failed_with_the_reason_not_left_queued(monkeypatch):
    run = queued_run()
    broken = fails_on_call(execution.import_run_execute, 1, OperationalError("disk I/O error"))
    monkeypatch.setattr(execution, "import_run_execute", broken)
    dispatch.import_run_start_here(run_id=run.pk).join(timeout=60)
    run.refresh_from_db()
    assert run.status == ImportRun.Status.FAILED
    assert "disk I/O error" in run.error

"""The Celery tasks the import code sends, by name.

``ingestion.tasks`` calls into this package, so this package never imports
it back: it looks its tasks up by name in the Celery app's registry, as a
worker does. The names are those the tasks were always registered under
(queued messages carry them); ``PublicationsConfig.ready`` imports the tasks
module, so every process that runs the site has them registered.
"""

from __future__ import annotations

from celery import current_app

from catalogue import signals
from catalogue.models import ImportRun

IMPORT_RUN = "publications.tasks.import_run"
REFRESH_AUTHOR_METRICS = "publications.tasks.refresh_author_metrics"


def task_send(name: str, *args):
    """Send the task registered as ``name`` (it runs inline when tasks are eager)."""
    return current_app.tasks[name].delay(*args)


def authors_changed_announce(author_ids: list[int], work_ids: list[int]) -> None:
    """After a commit that changed records: renew the authors' figures, tell the packages."""
    task_send(REFRESH_AUTHOR_METRICS, author_ids)
    signals.authors_changed.send(sender=ImportRun, author_ids=author_ids, work_ids=work_ids)

"""Celery tasks of the records: thin wrappers that take ids and call services.

Task names keep their first module's name, so messages already queued still run.
"""

from __future__ import annotations

from celery import shared_task

from catalogue import metrics

METRICS_CHUNK = 500


@shared_task(name="publications.tasks.refresh_author_metrics")
def refresh_author_metrics(author_ids: list[int]) -> int:
    written = 0
    for start in range(0, len(author_ids), METRICS_CHUNK):
        written += metrics.author_metrics_refresh(
            author_ids=author_ids[start : start + METRICS_CHUNK]
        )
    return written

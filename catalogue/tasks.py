"""Celery tasks of the records: thin wrappers that take ids and call services.

Task names keep their first module's name, so messages already queued still run.
"""

from __future__ import annotations

from celery import shared_task

from catalogue import metrics
from config.contention import again_when_lost

METRICS_CHUNK = 500


@shared_task(name="publications.tasks.refresh_author_metrics")
def refresh_author_metrics(author_ids: list[int]) -> int:
    """Recompute the figures of these authors, a chunk at a time.

    Sent after every import batch, so it often runs beside the next one; a chunk
    that loses a deadlock to it is recomputed, not left stale.
    """
    written = 0
    for start in range(0, len(author_ids), METRICS_CHUNK):
        chunk = author_ids[start : start + METRICS_CHUNK]
        written += again_when_lost(
            lambda chunk=chunk: metrics.author_metrics_refresh(author_ids=chunk),
            what="Refreshing author figures",
        )
    return written

"""Celery tasks of the graph app (the ``compute`` queue)."""

from __future__ import annotations

from celery import shared_task

from graph import services


@shared_task(name="graph.tasks.update_edges", soft_time_limit=600, time_limit=660)
def update_edges(author_ids: list[int], work_ids: list[int] | None = None) -> int:
    """Update the co-author edges after an import batch (its works) or a decision (authors)."""
    return services.edges_update(author_ids, work_ids)


@shared_task(name="graph.tasks.build_slice", soft_time_limit=120, time_limit=150)
def build_slice(author_id: int) -> bool:
    """Build and cache the researcher-page slice of one author."""
    return services.slice_build(author_id) is not None

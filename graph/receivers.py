"""Keep the edges current: each committed import batch names the authors and works it touched."""

from __future__ import annotations

from django.dispatch import receiver

from catalogue.signals import authors_changed
from graph import tasks


@receiver(authors_changed, dispatch_uid="graph.update_edges_after_import")
def after_import(sender, author_ids=(), work_ids=None, **kwargs) -> None:
    ids = sorted({int(pk) for pk in author_ids or () if pk})
    works = None if work_ids is None else sorted({int(pk) for pk in work_ids if pk})
    if ids:
        tasks.update_edges.delay(ids, works)

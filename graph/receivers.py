"""Keep the edges current: each committed import batch names the authors it touched."""

from __future__ import annotations

from django.dispatch import receiver

from publications.signals import authors_changed


@receiver(authors_changed, dispatch_uid="graph.update_edges_after_import")
def after_import(sender, author_ids=(), **kwargs) -> None:
    from graph import tasks

    ids = sorted({int(pk) for pk in author_ids or () if pk})
    if ids:
        tasks.update_edges.delay(ids)

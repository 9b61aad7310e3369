"""Re-resolving name blocks: the task's service, the fan-out and the command's loop."""

from __future__ import annotations

import logging
from functools import partial

from celery import current_app
from django.db import transaction

from catalogue.models import Author
from ingestion.importing.sending import authors_changed_announce
from ingestion.people.blocks import resolve_block

logger = logging.getLogger(__name__)

TASK = "publications.tasks.resolve_name_blocks"
BLOCKS_PER_TASK = 20


def resolve_blocks(keys: list[str]) -> dict:
    """Resolve each block in a transaction of its own; refresh the records that changed."""
    folded, candidates, splits = set(), 0, 0
    for key in keys:
        with transaction.atomic():
            report = resolve_block(key)
        folded |= report.folded
        candidates += report.candidates
        splits += report.splits
    if folded:
        transaction.on_commit(partial(authors_changed_announce, sorted(folded), []))
    return {"blocks": len(keys), "folded": len(folded), "candidates": candidates, "splits": splits}


def all_blocks() -> list[str]:
    """Every name block that holds a visible record."""
    rows = Author.objects.visible().exclude(name_block="").values_list("name_block", flat=True)
    return sorted(set(rows.distinct()))


def send_blocks(keys: list[str], per_task: int = BLOCKS_PER_TASK) -> int:
    """Queue the blocks, ``per_task`` to a task; returns how many tasks were sent."""
    task = current_app.tasks[TASK]
    sent = 0
    for start in range(0, len(keys), per_task):
        task.delay(keys[start : start + per_task])
        sent += 1
    return sent

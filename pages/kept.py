"""What pages keep drawn ahead of their visitors, a row a work: the parts every kind shares.

Each kind (``pages.entries``, ``pages.similar``, ``pages.summaries``) draws its HTML
from its templates and keeps it in a ``KeptDrawing`` model; ``generation`` names the
templates' text and the drawing code, so a row of another generation counts as missing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable

from django.db import DatabaseError, transaction
from django.db.models import Model
from django.template.loader import get_template
from django.utils import timezone

logger = logging.getLogger("pages")

# Rows forgotten in one statement.
FORGET_CHUNK = 5_000


def generation_of(template_name: str, drawing_format: str) -> str:
    """A token of the template's text and the drawing code's format number."""
    template = get_template(template_name)
    source = getattr(getattr(template, "template", None), "source", "")
    token = f"{drawing_format}|{source}".encode()
    return hashlib.sha1(token, usedforsecurity=False).hexdigest()[:16]


def keep(model: type[Model], drawn: dict[int, str | dict[str, str]], generation: str) -> None:
    """Keep the drawings as rows of ``model``, replacing older ones.

    ``drawn``: work id -> its HTML, or the fields of a kind that keeps more than one
    part (the same fields for every work).
    """
    if not drawn:
        return
    now = timezone.now()
    parts = {pk: {"html": d} if isinstance(d, str) else d for pk, d in drawn.items()}
    rows = [
        model(work_id=pk, generation=generation, rendered_at=now, **parts[pk])
        for pk in sorted(parts)  # one order for every writer: no deadlock between two
    ]
    model.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["work"],
        update_fields=[*sorted(next(iter(parts.values()))), "generation", "rendered_at"],
    )


def keep_if_possible(model: type[Model], drawn: dict, generation: str) -> dict:
    """``keep``, but a reader whose write is refused (a deadlock with another reader
    keeping the same rows) still has its drawings: keeping is a saving, not a duty."""
    try:
        with transaction.atomic():
            keep(model, drawn, generation)
    except DatabaseError:
        logger.warning("Could not keep %s %s rows", len(drawn), model.__name__, exc_info=True)
    return drawn


def forget(model: type[Model], work_ids: Iterable[int]) -> list[int]:
    """The drawings of these works are stale: forget them. Returns the ids."""
    ids = sorted({int(pk) for pk in work_ids if pk})
    for start in range(0, len(ids), FORGET_CHUNK):
        model.objects.filter(work_id__in=ids[start : start + FORGET_CHUNK]).delete()
    return ids

"""Keeping the graph current and its researcher-page slice cached.

A slice is cached under the author's *graph version*, a token that changes
whenever an import or curation touches the author (``versions_bump``), so a
repeat visit is served from the cache and new works show at the next visit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.core.cache import cache
from django.template.loader import render_to_string
from django.urls import reverse

from catalogue.models import Author
from graph import crowd, edges, neighbourhood, svg

SLICE_TIMEOUT = 24 * 3600
QUEUE_TIMEOUT = 120


def _version_key(author_id: int) -> str:
    return f"graph:version:{author_id}"


def version(author_id: int) -> str:
    """The author's current graph version (a new one when none is known)."""
    key = _version_key(author_id)
    current = cache.get(key)
    if current is None:
        current = uuid.uuid4().hex[:12]
        if not cache.add(key, current, None):
            current = cache.get(key) or current
    return current


def versions_bump(author_ids: Iterable[int]) -> None:
    cache.set_many({_version_key(a): uuid.uuid4().hex[:12] for a in author_ids}, None)


# Raised when the slice's markup changes, so no page is served a slice drawn the old way.
SLICE_FORMAT = 2


def slice_key(author_id: int, at_version: str | None = None) -> str:
    return f"graph:slice{SLICE_FORMAT}:{author_id}:{at_version or version(author_id)}"


def author_for_graph(author_id: int) -> Author | None:
    return (
        Author.objects.visible()
        .select_related("metrics", "last_known_institution")
        .filter(pk=author_id)
        .first()
    )


def slice_render(author: Author) -> str:
    """The slice fragment for the researcher page (built, laid out, drawn)."""
    hood = neighbourhood.build(author, limits=neighbourhood.SLICE)
    picture = svg.draw(
        hood,
        size=560,
        labels=12,
        narrow_labels=6,
        title=f"Research graph of {author}",
        caps=crowd.SLICE_CAPS,
        listed_at=reverse("graph:explorer", args=[author.pk]),
    )
    return render_to_string(
        "graph/_slice.html",
        {
            "author": author,
            "hood": hood,
            # The lists name the researcher's neighbours; the researcher is the page itself.
            "groups": {
                kind: [node for node in nodes if not node.centre]
                for kind, nodes in hood.by_kind().items()
            },
            "picture": picture,
            "kinds": neighbourhood.KIND_LABELS,
        },
    )


def slice_build(author_id: int) -> str | None:
    """Build the slice of ``author_id`` and cache it under the current version."""
    at_version = version(author_id)
    author = author_for_graph(author_id)
    if author is None:
        return None
    html = slice_render(author)
    cache.set(slice_key(author_id, at_version), html, SLICE_TIMEOUT)
    return html


def slice_cached(author_id: int) -> str | None:
    return cache.get(slice_key(author_id))


def slice_mark_queued(author_id: int) -> bool:
    """Note that a build of the slice is on its way, once per version; False if it already was.

    The caller queues the build (``graph.tasks.build_slice``) when this says True.
    """
    return cache.add(f"graph:queued:{author_id}:{version(author_id)}", 1, QUEUE_TIMEOUT)


def edges_update(author_ids: Iterable[int], work_ids: Iterable[int] | None = None) -> int:
    """After an import batch or a decision: update the edges, renew the authors' versions."""
    ids = sorted({int(a) for a in author_ids if a})
    if not ids:
        return 0
    written = edges.edges_refresh(ids, work_ids)
    versions_bump(ids)
    return written

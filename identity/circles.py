"""Who the co-authors wrote with: the circle a byline's work comes from.

A person's works seldom all share a co-author. A student writes a paper with a
partner group; a researcher signs a work of another lab while visiting. What ties
such a work to the rest of the person's works is one step further out: the
co-authors it names wrote other works with the co-authors of the person's
other works. A byline's *circle* is the set of records its co-authors' records
wrote any work with, leaving out its own record and its co-authors'.

Records with more than ``HUB`` of co-authors are left out of every circle: whoever
writes with everyone ties nobody together. Keys are whatever names a record:
``~<cluster>`` for a cluster of the engine's previous round, ``a<pk>`` for a record
held here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

from identity.evidence import Byline

HUB = 60  # co-author records past which a record ties nobody together


def circle_of(
    own: str, coauthors: Iterable[str], wrote_with: Mapping[str, set[str]]
) -> tuple[str, ...]:
    """The records the ``coauthors`` wrote with, apart from ``own`` and the co-authors."""
    coauthors = set(coauthors)
    circle: set[str] = set()
    for coauthor in coauthors:
        known = wrote_with.get(coauthor, ())
        if len(known) <= HUB:
            circle.update(known)
    circle -= coauthors
    circle.discard(own)
    return tuple(sorted(circle))


def with_coauthor_ids(bylines: list[Byline], records: dict[str, int]) -> list[Byline]:
    """The bylines, each told which records the other authors of its work resolved to
    (``records``: byline id to record) and the circle those records wrote with."""
    by_work: dict[str, list[Byline]] = defaultdict(list)
    for byline in bylines:
        by_work[byline.work_id].append(byline)
    wrote_with: dict[str, set[str]] = defaultdict(set)
    for work in by_work.values():
        keys = {f"~{records[b.id]}" for b in work}
        for key in keys:
            wrote_with[key] |= keys - {key}
    linked = []
    for byline in bylines:
        others = [f"~{records[o.id]}" for o in by_work[byline.work_id] if o.id != byline.id]
        circle = circle_of(f"~{records[byline.id]}", others, wrote_with)
        linked.append(
            replace(
                byline,
                coauthor_ids=(*byline.coauthor_ids, *others),
                circle_ids=(*byline.circle_ids, *circle),
            )
        )
    return linked

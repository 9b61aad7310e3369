"""Where the picture puts each node: the centre in the middle, each kind in a sector around it.

A spring layout of forty and more neighbours of one person pulls them all into
a knot around the centre. The picture instead gives each kind its own sector
of a circle, as wide as its share of the nodes (people, then papers, topics
and institutions, clockwise from the top; a person counts one and a half, as
people are what a researcher's graph is most about). Within a sector the people keep the
order of their angles in the spring layout, so collaborators who write
together stay side by side, and other kinds go most important first; a crowded
sector alternates between two rings so neighbouring names have room.
"""

from __future__ import annotations

import math

from graph.picture import KINDS, PERSON, Neighbourhood, Node

GAP = math.radians(14)  # between two sectors
INNER, OUTER = 0.62, 1.0  # the two rings, as shares of the picture's radius
SINGLE = 0.85  # the one ring of a sector with room to spare
ROOMY = 0.45  # the arc (at radius 1) between two nodes from which one ring will do
SHARE = {PERSON: 1.5}  # how much of the circle a node of a kind takes, against 1


def _order(nodes: list[Node], importance) -> list[Node]:
    if nodes[0].kind != PERSON:
        return sorted(nodes, key=importance)
    # Spring-layout angles, from the top; group nodes (still at the middle) last.
    placed = [n for n in nodes if n.x or n.y]
    rest = sorted((n for n in nodes if not (n.x or n.y)), key=importance)
    top = -math.pi / 2
    return sorted(placed, key=lambda n: (math.atan2(n.y, n.x) - top) % (2 * math.pi)) + rest


def arrange(hood: Neighbourhood, importance) -> None:
    """Place the nodes of ``hood`` in [-1, 1]², the centre at (0, 0), kinds in sectors."""
    sectors = [
        _order(of_kind, importance)
        for kind in KINDS
        if (of_kind := [n for n in hood.nodes if n.kind == kind and not n.centre])
    ]
    for node in hood.nodes:
        if node.centre:
            node.x = node.y = 0.0
    if not sectors:
        return
    share_of = [len(nodes) * SHARE.get(nodes[0].kind, 1.0) for nodes in sectors]
    total = sum(share_of)
    gaps = GAP * len(sectors) if len(sectors) > 1 else 0.0
    start = -math.pi / 2 + (GAP / 2 if gaps else 0.0)
    for nodes, weight in zip(sectors, share_of, strict=True):
        share = (2 * math.pi - gaps) * weight / total
        step = share / len(nodes)
        one_ring = step >= ROOMY
        for i, node in enumerate(nodes):
            angle = start + step * (i + 0.5)
            radius = SINGLE if one_ring else (INNER if i % 2 == 0 else OUTER)
            node.x, node.y = radius * math.cos(angle), radius * math.sin(angle)
        start += share + GAP

"""What a picture draws of a neighbourhood: at most so many shapes of each kind, arranged.

Forty and more neighbours drawn one by one make a tangle. The picture keeps
the most important nodes of each kind (people one step away before those two
steps away, then the heaviest) and draws the others of that kind as one group
node, "+23 more people", linked to the centre the way they are. A picture
with few enough nodes in all draws every one. The neighbourhood itself is not
changed, so the list beside the picture and the API still name every node;
the group links to that list. The drawn copy is then arranged in sectors
(``graph.arrange``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from graph.arrange import arrange
from graph.picture import KIND_LABELS, KINDS, Edge, Neighbourhood, Node


@dataclass(frozen=True)
class Caps:
    """The most shapes of each kind a picture draws, a group node included.

    A picture of at most ``total`` neighbours draws them all, whatever their kinds.
    """

    total: int = 30
    person: int = 20
    paper: int = 8
    topic: int = 6
    institution: int = 6

    def of(self, kind: str) -> int:
        return getattr(self, kind)


EXPLORER_CAPS = Caps()
# The slice gathers at most 12 people, 6 papers and 6 topics: only institutions may group.
SLICE_CAPS = Caps(total=24, person=12, paper=6, topic=6, institution=6)


@dataclass
class GroupNode(Node):
    """The nodes of one kind a picture does not draw one by one."""

    members: int = 0


def importance(node: Node) -> tuple:
    return (not node.centre, node.hop, -node.weight, node.label.lower(), node.id)


def list_anchor(kind: str) -> str:
    """The id of the list section that names every node of ``kind``."""
    return f"graph-list-{kind}"


def _group(kind: str, rest: list[Node], listed_at: str) -> GroupNode:
    noun = KIND_LABELS[kind].lower()
    return GroupNode(
        id=f"g{kind}",
        kind=kind,
        label=f"+{len(rest)} more {noun}",
        url=f"{listed_at}#{list_anchor(kind)}",
        weight=len(rest),
        why=f"{len(rest)} more {noun} than the picture draws one by one, named in the list",
        members=len(rest),
    )


def crowd(hood: Neighbourhood, caps: Caps | None, *, listed_at: str = "") -> Neighbourhood:
    """What the picture draws of ``hood``: the kept nodes and group nodes, arranged (a copy).

    ``caps``: None draws every node. ``listed_at``: the address of the page whose
    list names every node ("" for this one).
    """
    drawn: list[Node] = []
    stands_for: dict[str, str] = {}
    if caps is not None and len(hood.nodes) - 1 <= caps.total:
        caps = None
    for kind in KINDS:
        nodes = sorted((n for n in hood.nodes if n.kind == kind), key=importance)
        room = len(nodes) if caps is None else caps.of(kind) + any(n.centre for n in nodes)
        if len(nodes) <= room:
            drawn.extend(replace(n) for n in nodes)
            continue
        kept, rest = nodes[: room - 1], nodes[room - 1 :]
        group = _group(kind, rest, listed_at)
        drawn.extend([*(replace(n) for n in kept), group])
        stands_for.update((n.id, group.id) for n in rest)
    centre = next((n.id for n in hood.nodes if n.centre), "")
    picture = replace(hood, nodes=drawn, edges=_edges(hood.edges, stands_for, centre))
    arrange(picture, importance)
    return picture


def _edges(edges: list[Edge], stands_for: dict[str, str], centre: str) -> list[Edge]:
    """The edges between drawn nodes, and one from the centre to each group node.

    A group's edge has the kind of its first member's edge with the centre.
    """
    kept = [replace(e) for e in edges if e.source not in stands_for and e.target not in stands_for]
    to_groups: dict[str, Edge] = {}
    for edge in edges:
        ends = {edge.source, edge.target}
        member = (ends - {centre}).pop() if centre in ends and len(ends) == 2 else None
        group = stands_for.get(member or "")
        if group and group not in to_groups:
            to_groups[group] = Edge(centre, group, edge.kind)
    return kept + list(to_groups.values())

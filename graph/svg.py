"""Draw a laid-out neighbourhood as an SVG document, server-side.

Shapes and colours tell the kinds apart (people circles, papers squares, topics
diamonds, institutions triangles); a node's size follows its weight and an
edge's width its joint works. Every node is a link with a title that says what
it is and why it is there, so it can be hovered, focused and read by a screen
reader. Every name is escaped: imported names are text, never markup.

A dense neighbourhood is drawn with at most so many shapes of each kind, the
rest as one group node per kind (``graph.crowd``). Shapes are then moved apart
until none covers another, and names are placed where they overlap neither
another name nor any shape (``graph.labels``).

The SVG scales with the width it is given, so a name's size on screen is its
size in the view box times that width over the view box's. The picture carries
two sets of names, each large enough to read as body text where it shows:
a few large ones for a picture narrower than ``WIDE_FROM_PX`` (down to
``NARROWEST_PX``), and more, smaller ones from there up; graph.css switches
between them with a container query on the picture's frame, and the
explorer's script shows the second set once the picture is zoomed in enough.
Nodes it can re-centre on link to their own explorer page, with the same
address for htmx to swap the explorer in place.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from django.utils.html import escape
from django.utils.safestring import SafeString

from catalogue.display import clip
from graph import labels as names
from graph.crowd import Caps, GroupNode, crowd, importance
from graph.picture import INSTITUTION, KINDS, PAPER, PERSON, TOPIC, Neighbourhood, Node

COLOURS = {
    PERSON: "#1f4e79",
    PAPER: "#0b6e4f",
    TOPIC: "#8a4b00",
    INSTITUTION: "#6b3fa0",
}
CENTRE_COLOUR = "#c2410c"
EDGE_COLOURS = {
    "coauthor": "#7d8fa3",
    "wrote": "#8fbfae",
    "topic": "#d9b68c",
    "affiliation": "#b9a3d6",
    "similar": "#8fbfae",
    "cites": "#9d174d",  # apart from every node colour, 8:1 against the picture's ground
}
LABEL_INK = "#1b2430"

# Body text is the browser's 16 px: site.css sets no font size on html or body.
BODY_TEXT_PX = 16
# The narrowest the picture is drawn: its frame on a 360 px phone is 284 px wide
# (main's 1rem margins, the panel's 1.25rem padding and border), 316 px at 390 px.
NARROWEST_PX = 280
# From this frame width up graph.css shows the wide set of names (a test keeps them equal).
WIDE_FROM_PX = 560


def label_font(size: float, width_px: float) -> float:
    """The font size (view-box units) that reads as body text in a picture ``width_px`` wide."""
    return math.ceil(BODY_TEXT_PX * size / width_px * 10) / 10


class Drawing(SafeString):
    """An SVG picture (safe markup), with what its legend says about it."""

    groups: dict[str, int]  # kind: how many nodes a group node stands for
    citations: int  # citation links drawn

    @classmethod
    def of(cls, markup: str, *, groups: dict[str, int], citations: int) -> Drawing:
        drawing = cls(markup)
        drawing.groups, drawing.citations = groups, citations
        return drawing


def _radius(node: Node, biggest: float, size: float) -> float:
    base = size / 95
    if node.centre:
        return base * 2.2
    if isinstance(node, GroupNode):
        return base * 1.5
    share = math.sqrt(max(node.weight, 0.0) / biggest) if biggest else 0.0
    return base * (0.9 + 1.1 * share)


# How far a shape reaches from its middle, in radii (a square's corner, a diamond's tip).
REACH = {PERSON: 1.0, PAPER: 1.21, TOPIC: 1.25, INSTITUTION: 1.3}
# A group node is its shape twice, the second behind and up to the right.
STACK = 0.5


def _reach(node: Node, r: float) -> float:
    reach = REACH[node.kind] * r
    return reach + STACK * r * math.sqrt(2) if isinstance(node, GroupNode) else reach


def _outline_box(kind: str, x: float, y: float, r: float) -> names.Box:
    if kind == PAPER:
        half = r * 0.85
        return (x - half, y - half, x + half, y + half)
    if kind == TOPIC:
        d = r * 1.25
        return (x - d, y - d, x + d, y + d)
    if kind == INSTITUTION:
        d = r * 1.3
        return (x - d * 0.95, y - d, x + d * 0.95, y + d * 0.7)
    return (x - r, y - r, x + r, y + r)


def mark_box(node: Node, x: float, y: float, r: float) -> names.Box:
    """The box a node's shape covers (both shapes of a group node, and their outline)."""
    box = _outline_box(node.kind, x, y, r)
    if isinstance(node, GroupNode):
        back = _outline_box(node.kind, x + STACK * r, y - STACK * r, r)
        pad = r * 0.15
        box = (
            min(box[0], back[0]) - pad,
            min(box[1], back[1]) - pad,
            max(box[2], back[2]) + pad,
            max(box[3], back[3]) + pad,
        )
    return box


def _outline(kind: str, x: float, y: float, r: float, paint: str) -> str:
    if kind == PAPER:
        side = r * 1.7
        return (
            f'<rect x="{x - side / 2:.1f}" y="{y - side / 2:.1f}" width="{side:.1f}" '
            f'height="{side:.1f}" rx="2" {paint}/>'
        )
    if kind == TOPIC:
        d = r * 1.25
        points = f"{x:.1f},{y - d:.1f} {x + d:.1f},{y:.1f} {x:.1f},{y + d:.1f} {x - d:.1f},{y:.1f}"
        return f'<polygon points="{points}" {paint}/>'
    if kind == INSTITUTION:
        d = r * 1.3
        points = (
            f"{x:.1f},{y - d:.1f} {x + d * 0.95:.1f},{y + d * 0.7:.1f} "
            f"{x - d * 0.95:.1f},{y + d * 0.7:.1f}"
        )
        return f'<polygon points="{points}" {paint}/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" {paint}/>'


def _shape(node: Node, x: float, y: float, r: float) -> str:
    fill = CENTRE_COLOUR if node.centre else COLOURS[node.kind]
    front = _outline(node.kind, x, y, r, f'fill="{fill}"')
    if not isinstance(node, GroupNode):
        return front
    back = _outline(
        node.kind,
        x + STACK * r,
        y - STACK * r,
        r,
        f'fill="#ffffff" stroke="{fill}" stroke-width="{r * 0.25:.1f}"',
    )
    return back + front


SLACK = 0.5  # what shapes may still overlap when a move would bring too little


def _spread(
    points: dict[str, list[float]],
    reach: dict[str, float],
    fixed: str | None,
    size: float,
    clear: names.Box | None = None,
) -> None:
    """Move shapes apart until none covers another, each inside the picture.

    No shape but ``fixed`` is left over the ``clear`` box (kept for the centre's name).
    """
    gap = size / 150
    ids = list(points)
    for _ in range(60):
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                moved |= _part(points[a], points[b], reach[a] + reach[b] + gap, a, b, fixed, i)
        for key, point in points.items():
            edge = reach[key] + gap
            point[0] = min(max(point[0], edge), size - edge)
            point[1] = min(max(point[1], edge), size - edge)
            if clear and key != fixed:
                moved |= _off(point, reach[key] + gap, clear, size)
        if not moved:
            return


def _part(pa: list[float], pb: list[float], need: float, a: str, b: str, fixed, i: int) -> bool:
    """Push two shapes apart to ``need`` between their middles; False if they were that far."""
    dx, dy = pb[0] - pa[0], pb[1] - pa[1]
    distance = math.hypot(dx, dy)
    if distance >= need - SLACK:
        return False
    if distance < 1e-6:  # the same spot: part them along a fixed slant
        dx, dy = 1.0, 0.5 + i % 3
        distance = math.hypot(dx, dy)
    push = (need - distance) / distance
    share_a = 0.0 if a == fixed else (1.0 if b == fixed else 0.5)
    pa[0] -= dx * push * share_a
    pa[1] -= dy * push * share_a
    pb[0] += dx * push * (1.0 - share_a)
    pb[1] += dy * push * (1.0 - share_a)
    return True


def _off(point: list[float], reach: float, box: names.Box, size: float) -> bool:
    """Move a shape up or down (the nearer way that stays inside) off ``box``."""
    x, y = point
    if not (
        box[0] < x + reach and x - reach < box[2] and box[1] < y + reach and y - reach < box[3]
    ):
        return False
    up, down = box[1] - reach, box[3] + reach
    fits_up, fits_down = up >= reach, down <= size - reach
    point[1] = up if fits_up and (y - up <= down - y or not fits_down) else down
    return True


def _short(node: Node) -> str | None:
    """A label's own shorter form: a group's count, a person's initials and surname."""
    if isinstance(node, GroupNode):
        return f"+{node.members} more"
    return names.short_name(node.label) if node.kind == PERSON else None


def _unit(dx: float, dy: float) -> tuple[float, float]:
    length = math.hypot(dx, dy)
    return (dx / length, dy / length) if length > 1e-6 else (0.0, 0.0)


def _label_order(nodes: list[Node]) -> list[Node]:
    """The centre, then the first of each kind, the second of each kind, and so on.

    A group node comes after the first two of its kind.
    """
    rank: dict[str, float] = {}
    for kind in KINDS:
        of_kind = sorted((n for n in nodes if n.kind == kind), key=importance)
        singles = [n for n in of_kind if not n.centre and not isinstance(n, GroupNode)]
        rank |= {n.id: i for i, n in enumerate(singles)}
        rank |= {n.id: 1.5 for n in of_kind if isinstance(n, GroupNode)}
        rank |= {n.id: -1 for n in of_kind if n.centre}
    return sorted(nodes, key=lambda n: (rank[n.id], KINDS.index(n.kind)))


def draw(
    hood: Neighbourhood,
    *,
    size: int = 640,
    labels: int = 24,
    narrow_labels: int = 8,
    title: str = "",
    recentre: Callable[[Node], str | None] | None = None,
    caps: Caps | None = None,
    listed_at: str = "",
) -> Drawing:
    """The neighbourhood as an inline SVG element (``size`` × ``size`` view box).

    ``labels``, ``narrow_labels``: the most names in the wide and the narrow set.
    ``recentre``: the explorer address of a node it can centre on, or None.
    ``caps``: the most shapes of each kind; ``listed_at``: the page whose list
    names every node, for the group nodes to link to ("" for this page).
    """
    drawn = crowd(hood, caps, listed_at=listed_at)
    centre = next((n for n in drawn.nodes if n.centre), None)
    points, radius = _layout(drawn, centre, size)
    marks = {n.id: mark_box(n, *points[n.id], radius[n.id]) for n in drawn.nodes}
    half = size / 2
    order = [
        (n.id, n.label, _short(n), n.centre, _unit(points[n.id][0] - half, points[n.id][1] - half))
        for n in _label_order(drawn.nodes)
    ]
    wide = names.place(order, marks, size=size, font=label_font(size, WIDE_FROM_PX), limit=labels)
    narrow = names.place(
        order, marks, size=size, font=label_font(size, NARROWEST_PX), limit=narrow_labels
    )
    arrow = f"graph-cites-{centre.id if centre else 'none'}"
    parts = [
        f'<svg class="graph-svg" viewBox="0 0 {size} {size}" role="group" '
        f'aria-label="{escape(clip(title, "title") or "Research graph")}" '
        f'data-wide-from="{WIDE_FROM_PX}" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif">',
        _arrow_marker(arrow, size),
        *_edge_lines(drawn, points, radius, arrow),
        '<g class="graph-nodes">',
    ]
    for node in sorted(drawn.nodes, key=lambda n: n.centre):  # the centre is drawn last, on top
        parts.append(_node_link(node, recentre))
        parts.append(_shape(node, *points[node.id], radius[node.id]))
        if node.id in wide:
            parts.append(_label(wide[node.id], "wide"))
        if node.id in narrow:
            parts.append(_label(narrow[node.id], "narrow"))
        parts.append("</a>")
    parts.append("</g></svg>")
    # Safe markup: every text above went through escape().
    return Drawing.of(
        "".join(parts),
        groups={n.kind: n.members for n in drawn.nodes if isinstance(n, GroupNode)},
        citations=sum(1 for e in drawn.edges if e.kind == "cites"),
    )


def _layout(drawn, centre: Node | None, size: int) -> tuple[dict, dict]:
    """Each node's point in the view box and its shape's radius.

    The centre's name in the larger set is given room first, so it is always shown;
    the other shapes are then spread clear of it and of each other.
    """
    margin = size * 0.09
    span = size / 2 - margin
    biggest = max(
        (n.weight for n in drawn.nodes if not n.centre and not isinstance(n, GroupNode)),
        default=1.0,
    )
    radius = {n.id: _radius(n, biggest or 1.0, size) for n in drawn.nodes}
    points = {n.id: [size / 2 + n.x * span, size / 2 + n.y * span] for n in drawn.nodes}
    room = (
        names.reserve(
            centre.label,
            mark_box(centre, *points[centre.id], radius[centre.id]),
            short=_short(centre),
            size=size,
            font=label_font(size, NARROWEST_PX),
        )
        if centre
        else None
    )
    reach = {n.id: _reach(n, radius[n.id]) for n in drawn.nodes}
    _spread(points, reach, centre.id if centre else None, size, clear=room)
    return points, radius


def _label(label: names.Label, which: str) -> str:
    weight = ' font-weight="700"' if label.bold else ""
    attributes = (
        f'class="label label-{which}" font-size="{label.font:.1f}" '
        f'text-anchor="{label.anchor}"{weight} fill="{LABEL_INK}" stroke="#ffffff" '
        f'stroke-width="{label.font / 4:.1f}" paint-order="stroke"'
    )
    x = f"{label.x:.1f}"
    if len(label.lines) == 1:
        return (
            f'<text {attributes} x="{x}" y="{label.baseline:.1f}">{escape(label.lines[0])}</text>'
        )
    lines = "".join(
        f'<tspan x="{x}" y="{label.baseline + i * label.font * names.LINE_HEIGHT:.1f}">'
        f"{escape(line)}</tspan>"
        for i, line in enumerate(label.lines)
    )
    return f'<text {attributes} x="{x}" y="{label.baseline:.1f}">{lines}</text>'


def _arrow_marker(marker_id: str, size: float) -> str:
    """The arrowhead of a citation link, at the cited paper's end."""
    length = size / 45
    return (
        f'<defs><marker id="{marker_id}" viewBox="0 0 10 10" refX="9" refY="5" '
        f'markerUnits="userSpaceOnUse" markerWidth="{length:.1f}" markerHeight="{length:.1f}" '
        f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{EDGE_COLOURS["cites"]}"/>'
        "</marker></defs>"
    )


def _edge_lines(
    hood: Neighbourhood,
    points: dict[str, list[float]],
    radius: dict[str, float],
    arrow: str,
) -> list[str]:
    """The edges as lines, a co-author edge as wide as its share of the most joint works.

    Widths are screen pixels whatever the picture's scale (non-scaling strokes).
    Citations come last, on top, dashed and ending in an arrow at the cited paper.
    """
    nodes = {n.id: n for n in hood.nodes}
    strongest = max((e.weight for e in hood.edges if e.kind == "coauthor"), default=1) or 1
    parts = ['<g class="graph-edges">']
    for edge in sorted(hood.edges, key=lambda e: e.kind == "cites"):
        a, b = nodes[edge.source], nodes[edge.target]
        (x1, y1), (x2, y2) = points[a.id], points[b.id]
        extra = ""
        if edge.kind == "cites":
            width = 2.0
            x2, y2 = _short_of(x1, y1, x2, y2, _reach(b, radius[b.id]) + 2)
            extra = f' stroke-dasharray="6 3" marker-end="url(#{arrow})"'
        elif edge.kind == "coauthor":
            width = 1.0 + 3.0 * (edge.weight / strongest)
        else:
            width = 1.0
        parts.append(
            f'<line class="edge edge-{edge.kind}" data-kinds="{a.kind} {b.kind}" '
            f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{EDGE_COLOURS[edge.kind]}" stroke-width="{width:.1f}" '
            f'vector-effect="non-scaling-stroke"{extra}/>'
        )
    parts.append("</g>")
    return parts


def _short_of(x1: float, y1: float, x2: float, y2: float, by: float) -> tuple[float, float]:
    """The point ``by`` units before (x2, y2) on the way from (x1, y1)."""
    length = math.hypot(x2 - x1, y2 - y1)
    if length <= by:
        return x2, y2
    keep = (length - by) / length
    return x1 + (x2 - x1) * keep, y1 + (y2 - y1) * keep


def _node_link(node: Node, recentre: Callable[[Node], str | None] | None) -> str:
    """The opening link of a node, with a title that says what it is and why it is there."""
    # Titles and notes as long as the pages show them, never a whole imported text.
    name = escape(clip(node.label, "title"))
    classes = f"node node-{node.kind}{' node-centre' if node.centre else ''}"
    if isinstance(node, GroupNode):
        classes += " node-group"
    target = recentre(node) if recentre and not node.centre else None
    link = (
        f'href="{escape(target)}" data-hx-get="{escape(target)}"'
        if target
        else f'href="{escape(node.url)}"'
    )
    return (
        f'<a class="{classes}" {link} data-node="{node.id}">'
        f"<title>{name}: {escape(clip(node.why, 'note'))}</title>"
    )

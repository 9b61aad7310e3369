"""Draw a laid-out neighbourhood as an SVG document, server-side.

Shapes and colours tell the kinds apart (people circles, papers squares, topics
diamonds, institutions triangles); a node's size follows its weight and an
edge's width its joint works. Every node is a link with a title that says what
it is and why it is there, so it can be hovered, focused and read by a screen
reader. Every name is escaped: imported names are text, never markup.

The explorer asks for two sets of labels: the usual ones, and fewer, larger
ones that its stylesheet shows instead when the picture is drawn narrow (a
phone) and not zoomed in. Nodes it can re-centre on link to their own explorer
page, with the same address for htmx to swap the explorer in place.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from graph.picture import INSTITUTION, PAPER, PERSON, TOPIC, Neighbourhood, Node
from publications.display import clip

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
    "cites": "#0b6e4f",
}
LABEL_LENGTH = 28


def _short(text: str, length: int = LABEL_LENGTH) -> str:
    return clip(text, length)


def _radius(node: Node, biggest: float, size: float) -> float:
    base = size / 95
    if node.centre:
        return base * 2.2
    share = math.sqrt(max(node.weight, 0.0) / biggest) if biggest else 0.0
    return base * (0.9 + 1.1 * share)


def _shape(node: Node, x: float, y: float, r: float) -> str:
    fill = CENTRE_COLOUR if node.centre else COLOURS[node.kind]
    if node.kind == PAPER:
        side = r * 1.7
        return (
            f'<rect x="{x - side / 2:.1f}" y="{y - side / 2:.1f}" width="{side:.1f}" '
            f'height="{side:.1f}" rx="2" fill="{fill}"/>'
        )
    if node.kind == TOPIC:
        d = r * 1.25
        points = f"{x:.1f},{y - d:.1f} {x + d:.1f},{y:.1f} {x:.1f},{y + d:.1f} {x - d:.1f},{y:.1f}"
        return f'<polygon points="{points}" fill="{fill}"/>'
    if node.kind == INSTITUTION:
        d = r * 1.3
        points = (
            f"{x:.1f},{y - d:.1f} {x + d * 0.95:.1f},{y + d * 0.7:.1f} "
            f"{x - d * 0.95:.1f},{y + d * 0.7:.1f}"
        )
        return f'<polygon points="{points}" fill="{fill}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}"/>'


# Average advance of a character of the label font, in font sizes (a safe overestimate).
CHAR_WIDTH = 0.62
SHORTER_LABEL = 16


def _overlaps(box: tuple, boxes: list[tuple]) -> bool:
    x1, y1, x2, y2 = box
    return any(x1 < b[2] and b[0] < x2 and y1 < b[3] and b[1] < y2 for b in boxes)


def _place_labels(nodes, at, radius, size: float, font: float, limit: int) -> dict:
    """Greedy label placement: ``{node id: (text, x, y, anchor)}`` for up to ``limit`` nodes.

    The most important nodes choose first among four spots (right, left, above,
    below), then with a shorter text; a label that fits nowhere is left out.
    """
    shapes = {}
    for node in nodes:
        x, y = at(node)
        r = radius(node) * 1.3
        shapes[node.id] = (x - r, y - r, x + r, y + r)
    taken: list[tuple] = []
    placed: dict[str, tuple] = {}
    pad = 2.0
    order = sorted(nodes, key=lambda n: (not n.centre, n.hop, -n.weight, n.label))
    for node in order:
        if len(placed) >= limit:
            break
        x, y = at(node)
        r = radius(node)
        others = [box for key, box in shapes.items() if key != node.id]
        for length in (LABEL_LENGTH, SHORTER_LABEL):
            text = _short(node.label, length)
            width = len(text) * font * CHAR_WIDTH
            spots = (
                (x + r + 3, y + font * 0.35, "start", x + r + 3, x + r + 3 + width),
                (x - r - 3, y + font * 0.35, "end", x - r - 3 - width, x - r - 3),
                (x, y - r - 4, "middle", x - width / 2, x + width / 2),
                (x, y + r + font, "middle", x - width / 2, x + width / 2),
            )
            for lx, ly, anchor, left, right in spots:
                box = (left - pad, ly - font * 0.85, right + pad, ly + font * 0.3)
                if box[0] < 4 or box[2] > size - 4 or box[1] < 2 or box[3] > size - 2:
                    continue
                if _overlaps(box, taken) or _overlaps(box, others):
                    continue
                taken.append(box)
                placed[node.id] = (text, lx, ly, anchor)
                break
            if node.id in placed:
                break
        if node.centre and node.id not in placed:  # the researcher is always named
            text = _short(node.label)
            width = len(text) * font * CHAR_WIDTH
            anchor = "start" if x + r + 3 + width <= size else "end"
            lx = x + r + 3 if anchor == "start" else x - r - 3
            ly = y + font * 0.35
            left = lx if anchor == "start" else lx - width
            taken.append((left, ly - font * 0.85, left + width, ly + font * 0.3))
            placed[node.id] = (text, lx, ly, anchor)
    return placed


def _label(placed: tuple, node: Node, font: float, which: str) -> str:
    text, lx, ly, anchor = placed
    weight = ' font-weight="700"' if node.centre else ""
    return (
        f'<text class="label label-{which}" x="{lx:.1f}" y="{ly:.1f}" font-size="{font:.1f}" '
        f'text-anchor="{anchor}"{weight} fill="#1b2430" stroke="#ffffff" '
        f'stroke-width="{font / 4:.1f}" paint-order="stroke">'
        f"{escape(text)}</text>"
    )


def draw(
    hood: Neighbourhood,
    *,
    size: int = 640,
    labels: int = 24,
    title: str = "",
    narrow_labels: int = 0,
    recentre: Callable[[Node], str | None] | None = None,
) -> SafeString:
    """The neighbourhood as an inline SVG element (``size`` × ``size`` view box).

    ``narrow_labels``: how many larger labels to add for a narrow picture.
    ``recentre``: the explorer address of a node it can centre on, or None.
    """
    margin = size * 0.09
    span = size / 2 - margin

    def at(node: Node) -> tuple[float, float]:
        return size / 2 + node.x * span, size / 2 + node.y * span

    biggest = max((n.weight for n in hood.nodes if not n.centre), default=1.0) or 1.0
    # Labels for the centre and the heaviest nodes, placed where they overlap
    # neither another label nor a shape and stay inside the box; the rest speak
    # through their titles.
    font = size / 40
    radius = lambda n: _radius(n, biggest, size)  # noqa: E731
    placed = _place_labels(hood.nodes, at, radius, size, font, labels)
    # Read at a third of its size on a phone, the narrow set is ~1.6 times larger.
    narrow_font = size / 25
    narrow = (
        _place_labels(hood.nodes, at, radius, size, narrow_font, narrow_labels)
        if narrow_labels
        else {}
    )
    parts = [
        f'<svg class="graph-svg" viewBox="0 0 {size} {size}" role="group" '
        f'aria-label="{escape(clip(title, "title") or "Research graph")}" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif">',
        *_edge_lines(hood, at),
        '<g class="graph-nodes">',
    ]
    for node in sorted(hood.nodes, key=lambda n: n.centre):  # the centre is drawn last, on top
        parts.append(_node_link(node, recentre))
        parts.append(_shape(node, *at(node), radius(node)))
        if node.id in placed:
            parts.append(_label(placed[node.id], node, font, "wide"))
        if node.id in narrow:
            parts.append(_label(narrow[node.id], node, narrow_font, "narrow"))
        parts.append("</a>")
    parts.append("</g></svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above went through escape()


def _edge_lines(hood: Neighbourhood, at: Callable[[Node], tuple[float, float]]) -> list[str]:
    """The edges as lines, a co-author edge as wide as its share of the most joint works."""
    nodes = {n.id: n for n in hood.nodes}
    strongest = max((e.weight for e in hood.edges if e.kind == "coauthor"), default=1) or 1
    parts = ['<g class="graph-edges">']
    for edge in hood.edges:
        a, b = nodes[edge.source], nodes[edge.target]
        (x1, y1), (x2, y2) = at(a), at(b)
        width = 1.0 + 4.0 * (edge.weight / strongest) if edge.kind == "coauthor" else 1.0
        # A citation is dashed, so it reads apart from authorship links of the same colour.
        dashed = ' stroke-dasharray="6 3"' if edge.kind == "cites" else ""
        parts.append(
            f'<line class="edge edge-{edge.kind}" data-kinds="{a.kind} {b.kind}" '
            f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{EDGE_COLOURS[edge.kind]}" stroke-width="{width:.1f}"{dashed}/>'
        )
    parts.append("</g>")
    return parts


def _node_link(node: Node, recentre: Callable[[Node], str | None] | None) -> str:
    """The opening link of a node, with a title that says what it is and why it is there."""
    # Titles and notes as long as the pages show them, never a whole imported text.
    name = escape(clip(node.label, "title"))
    classes = f"node node-{node.kind}{' node-centre' if node.centre else ''}"
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

"""Draw a laid-out neighbourhood as an SVG document, server-side.

Shapes and colours tell the kinds apart (people circles, papers squares, topics
diamonds, institutions triangles); a node's size follows its weight and an
edge's width its joint works. Every node is a link with a title that says what
it is and why it is there, so it can be hovered, focused and read by a screen
reader. Every name is escaped: imported names are text, never markup.
"""

from __future__ import annotations

import math

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from graph.neighbourhood import INSTITUTION, PAPER, PERSON, TOPIC, Neighbourhood, Node

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
}
LABEL_LENGTH = 28


def _short(text: str, length: int = LABEL_LENGTH) -> str:
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


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


def draw(hood: Neighbourhood, *, size: int = 640, labels: int = 24, title: str = "") -> SafeString:
    """The neighbourhood as an inline SVG element (``size`` × ``size`` view box)."""
    margin = size * 0.09
    span = size / 2 - margin

    def at(node: Node) -> tuple[float, float]:
        return size / 2 + node.x * span, size / 2 + node.y * span

    nodes = {n.id: n for n in hood.nodes}
    biggest = max((n.weight for n in hood.nodes if not n.centre), default=1.0) or 1.0
    strongest = max((e.weight for e in hood.edges if e.kind == "coauthor"), default=1) or 1
    # Labels for the centre and the heaviest nodes; the rest speak through their titles.
    labelled = {
        n.id
        for n in sorted(hood.nodes, key=lambda n: (not n.centre, n.hop, -n.weight, n.label))[
            :labels
        ]
    }
    parts = [
        f'<svg class="graph-svg" viewBox="0 0 {size} {size}" role="group" '
        f'aria-label="{escape(title or "Research graph")}" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif">'
    ]
    parts.append('<g class="graph-edges">')
    for edge in hood.edges:
        a, b = nodes[edge.source], nodes[edge.target]
        (x1, y1), (x2, y2) = at(a), at(b)
        width = 1.0 + 4.0 * (edge.weight / strongest) if edge.kind == "coauthor" else 1.0
        parts.append(
            f'<line class="edge edge-{edge.kind}" data-kinds="{a.kind} {b.kind}" '
            f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{EDGE_COLOURS[edge.kind]}" stroke-width="{width:.1f}"/>'
        )
    parts.append("</g>")
    parts.append('<g class="graph-nodes">')
    font = size / 40
    for node in sorted(hood.nodes, key=lambda n: n.centre):  # the centre is drawn last, on top
        x, y = at(node)
        r = _radius(node, biggest, size)
        name = escape(node.label)
        classes = f"node node-{node.kind}{' node-centre' if node.centre else ''}"
        parts.append(
            f'<a class="{classes}" href="{escape(node.url)}" data-node="{node.id}">'
            f"<title>{name}: {escape(node.why)}</title>"
        )
        parts.append(_shape(node, x, y, r))
        if node.id in labelled:
            anchor = "start" if x < size * 0.72 else "end"
            dx = r + 3 if anchor == "start" else -(r + 3)
            weight = ' font-weight="700"' if node.centre else ""
            parts.append(
                f'<text x="{x + dx:.1f}" y="{y + font * 0.35:.1f}" font-size="{font:.1f}" '
                f'text-anchor="{anchor}"{weight} fill="#1b2430" stroke="#ffffff" '
                f'stroke-width="{font / 4:.1f}" paint-order="stroke">'
                f"{escape(_short(node.label))}</text>"
            )
        parts.append("</a>")
    parts.append("</g></svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above went through escape()

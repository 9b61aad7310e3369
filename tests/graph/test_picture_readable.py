"""The drawn picture stays readable: names overlap nothing and read as body text at any width.

The SVG is parsed as a browser would get it. A name's box is estimated from its
font size and character count: CHARACTER font sizes a character (Chromium's
system-ui on Linux, DejaVu Sans, averages 0.52-0.58 on names and titles, bold
0.59-0.65), and the font's ascent and descent above and below each baseline.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from graph import crowd, svg
from graph.crowd import EXPLORER_CAPS, SLICE_CAPS
from graph.picture import (
    INSTITUTION,
    PAPER,
    PERSON,
    TOPIC,
    Edge,
    Neighbourhood,
    Node,
    layout,
)

STATIC = Path(__file__).resolve().parents[2] / "static" / "css"
NS = {"svg": "http://www.w3.org/2000/svg"}
CHARACTER = 0.62  # a safe width for a character of regular text, in font sizes
BOLD = 1.13  # bold text is at most this much wider
ASCENT, DESCENT = 0.93, 0.24  # DejaVu Sans, as Chromium lays it out
# The picture's width on a 390 px phone: the page's 1rem margins, the panel's
# 1.25rem padding and 1px border, the frame's 1px border (the browser test measures it).
PHONE_PICTURE_PX = 390 - 2 * 16 - 2 * 20 - 2 - 2


@dataclass
class Text:
    which: str  # wide or narrow
    node: str
    lines: list[str]
    font: float
    box: tuple[float, float, float, float]


def _box_of_shape(shape: ET.Element) -> tuple[float, float, float, float]:
    tag = shape.tag.split("}")[1]
    if tag == "circle":
        x, y, r = (float(shape.get(k)) for k in ("cx", "cy", "r"))
        return (x - r, y - r, x + r, y + r)
    if tag == "rect":
        x, y, w, h = (float(shape.get(k)) for k in ("x", "y", "width", "height"))
        return (x, y, x + w, y + h)
    points = [tuple(map(float, p.split(","))) for p in shape.get("points").split()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _union(boxes):
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _text(element: ET.Element, node: str) -> Text:
    font = float(element.get("font-size"))
    factor = CHARACTER * (BOLD if element.get("font-weight") == "700" else 1.0)
    spans = element.findall("svg:tspan", NS) or [element]
    lines = [(span.text or "", float(span.get("x")), float(span.get("y"))) for span in spans]
    boxes = []
    for line, x, y in lines:
        width = len(line) * font * factor
        left = {"start": x, "middle": x - width / 2, "end": x - width}[element.get("text-anchor")]
        boxes.append((left, y - ASCENT * font, left + width, y + DESCENT * font))
    which = "wide" if "label-wide" in element.get("class") else "narrow"
    return Text(which, node, [line for line, _, _ in lines], font, _union(boxes))


def parse(markup: str):
    """The picture's size, its shapes' boxes by node, and its names."""
    root = ET.fromstring(str(markup))
    size = float(root.get("viewBox").split()[2])
    marks, texts = {}, []
    for link in root.iter("{http://www.w3.org/2000/svg}a"):
        node = link.get("data-node")
        shapes = [
            child for child in link if child.tag.split("}")[1] in ("circle", "rect", "polygon")
        ]
        marks[node] = _union([_box_of_shape(s) for s in shapes])
        texts += [_text(t, node) for t in link.findall("svg:text", NS)]
    return size, marks, texts


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlaps(markup: str) -> list[tuple[str, str]]:
    """Every pair (name, name or shape) whose boxes overlap, and every name off the picture."""
    size, marks, texts = parse(markup)
    found = []
    for which in ("wide", "narrow"):  # the two sets never show together
        shown = [t for t in texts if t.which == which]
        for i, text in enumerate(shown):
            found += [
                (text.lines[0], other.lines[0])
                for other in shown[i + 1 :]
                if _overlap(text.box, other.box)
            ]
            found += [
                (text.lines[0], node) for node, box in marks.items() if _overlap(text.box, box)
            ]
            left, top, right, bottom = text.box
            if left < 0 or top < 0 or right > size or bottom > size:
                found.append((text.lines[0], "the edge of the picture"))
    return found


LONG_NAMES = [
    "Maximiliana Anastasiya Vandenberghe-Oosterhuis",
    "Konstantinos Bartholomew Papadopoulou",
    "Oluwaseun Guadalupe Ramakrishnan-Iyer",
    "Jean-Baptiste Wilhelmina Montgomery-Smith",
]


def dense_hood(neighbours: int = 80) -> Neighbourhood:
    """A researcher with ``neighbours`` co-authors of long names, and papers, topics, institutions."""
    hood = Neighbourhood(author_id=1)
    hood.nodes.append(
        Node("a1", PERSON, "Dense Hub Researcher Example", "/r/1/", 9, "centre", centre=True, hop=0)
    )
    for n in range(neighbours):
        hop = 1 if n < neighbours // 2 else 2
        name = f"{LONG_NAMES[n % 4]} {n}"
        hood.nodes.append(
            Node(f"a{n + 2}", PERSON, name, f"/r/{n + 2}/", 1 + n % 7, "co-author", hop=hop)
        )
        source = "a1" if hop == 1 else f"a{2 + n % (neighbours // 2)}"
        hood.edges.append(Edge(source, f"a{n + 2}", "coauthor", 1 + n % 7))
    for n in range(12):
        title = f"Scaling the training of very large neural networks across clusters, part {n}"
        hood.nodes.append(Node(f"w{n}", PAPER, title, f"/w/{n}/", 1 + n % 3, "work"))
        hood.edges += [Edge("a1", f"w{n}", "wrote"), Edge(f"a{n + 2}", f"w{n}", "wrote")]
        if n:
            hood.edges.append(Edge(f"w{n}", f"w{n - 1}", "cites"))
    for n in range(10):
        hood.nodes.append(
            Node(
                f"t{n}",
                TOPIC,
                f"Distributed Systems and Machine Learning {n}",
                "/t/",
                10 - n,
                "topic",
            )
        )
        hood.edges.append(Edge("a1", f"t{n}", "topic", 10 - n))
    for n in range(15):
        name = f"Institute for Advanced Computational Studies of Somewhere {n}"
        hood.nodes.append(Node(f"i{n}", INSTITUTION, name, "/i/", 1 + n % 4, "institution"))
        hood.edges.append(Edge(f"a{n + 2}", f"i{n}", "affiliation"))
    layout(hood)
    return hood


def sparse_hood() -> Neighbourhood:
    hood = Neighbourhood(author_id=1)
    hood.nodes += [
        Node("a1", PERSON, "Ada Lovelace", "/r/1/", 2, "centre", centre=True, hop=0),
        Node("a2", PERSON, "Charles Babbage", "/r/2/", 2, "co-author"),
        Node("w1", PAPER, "Sketch of the Analytical Engine", "/w/1/", 2, "work"),
    ]
    hood.edges += [
        Edge("a1", "a2", "coauthor", 2),
        Edge("a1", "w1", "wrote"),
        Edge("a2", "w1", "wrote"),
    ]
    layout(hood)
    return hood


EXPLORER = {"size": 900, "labels": 22, "narrow_labels": 8, "caps": EXPLORER_CAPS}
SLICE = {"size": 560, "labels": 12, "narrow_labels": 6, "caps": SLICE_CAPS}


@pytest.mark.parametrize("drawn_as", [EXPLORER, SLICE], ids=["explorer", "slice"])
@pytest.mark.parametrize(
    "hood", [dense_hood(80), dense_hood(40), sparse_hood()], ids=["80", "40", "sparse"]
)
def test_no_name_overlaps_another_or_a_shape(hood, drawn_as):
    picture = svg.draw(hood, title="Graph", **drawn_as)
    assert overlaps(picture) == []
    size, marks, texts = parse(picture)
    centre_names = {t.which for t in texts if t.node == "a1"}
    assert centre_names == {"wide", "narrow"}  # the researcher is always named


@pytest.mark.parametrize("drawn_as", [EXPLORER, SLICE], ids=["explorer", "slice"])
def test_names_read_at_least_as_large_as_body_text_where_they_show(drawn_as):
    picture = svg.draw(dense_hood(80), title="Graph", **drawn_as)
    size, _, texts = parse(picture)
    wide = [t.font * svg.WIDE_FROM_PX / size for t in texts if t.which == "wide"]
    narrow = [t.font * svg.NARROWEST_PX / size for t in texts if t.which == "narrow"]
    phone = [t.font * PHONE_PICTURE_PX / size for t in texts if t.which == "narrow"]
    assert wide and narrow
    assert min(wide) >= svg.BODY_TEXT_PX and min(narrow) >= svg.BODY_TEXT_PX
    assert min(phone) >= svg.BODY_TEXT_PX and PHONE_PICTURE_PX >= svg.NARROWEST_PX


def test_body_text_and_the_switch_between_name_sets_agree_with_the_stylesheets():
    site = (STATIC / "site.css").read_text()
    for selector in ("html", "body"):  # no size of their own: the browser's 16 px
        rule = re.search(rf"^{selector} {{([^}}]*)}}", site, re.M).group(1)
        assert "font-size" not in rule and "font:" not in rule
    assert svg.BODY_TEXT_PX == 16
    graph = (STATIC / "graph.css").read_text()
    assert f"@container graph (width < {svg.WIDE_FROM_PX}px)" in graph
    assert "container: graph / inline-size" in graph


def test_a_dense_neighbourhood_draws_at_most_the_caps_and_groups_the_rest():
    hood = dense_hood(80)
    picture = svg.draw(hood, title="Graph", **EXPLORER)
    _, marks, texts = parse(picture)
    drawn = {kind: [n for n in marks if n[0] == kind[0]] for kind in ("a", "w", "t", "i")}
    assert len(drawn["a"]) == EXPLORER_CAPS.person  # the centre and 19 more, and a group
    assert picture.groups == {
        PERSON: 80 - (EXPLORER_CAPS.person - 1),
        PAPER: 12 - (EXPLORER_CAPS.paper - 1),
        TOPIC: 10 - (EXPLORER_CAPS.topic - 1),
        INSTITUTION: 15 - (EXPLORER_CAPS.institution - 1),
    }
    assert 'href="#graph-list-person"' in picture
    assert "<title>+61 more people: 61 more people than the picture draws" in picture
    # People one step away come first: no second-step person is drawn while any is left out.
    kept = {n.id for n in crowd.crowd(hood, EXPLORER_CAPS).nodes}
    assert all(n.hop == 1 for n in hood.nodes if n.id in kept and n.kind == PERSON and not n.centre)
    assert len(kept) == sum(EXPLORER_CAPS.of(k) for k in (PERSON, PAPER, TOPIC, INSTITUTION)) + 1
    assert hood.nodes[5].x == pytest.approx(dense_hood(80).nodes[5].x)  # the hood is not changed


def test_a_sparse_neighbourhood_draws_and_names_every_node():
    picture = svg.draw(sparse_hood(), title="Graph", **EXPLORER)
    _, marks, texts = parse(picture)
    assert set(marks) == {"a1", "a2", "w1"} and picture.groups == {}
    assert {t.node for t in texts if t.which == "wide"} == {"a1", "a2", "w1"}
    assert any(t.lines == ["Charles Babbage"] for t in texts)


def test_citations_are_drawn_dashed_with_an_arrow_in_a_colour_that_stands_out():
    picture = svg.draw(dense_hood(40), title="Graph", **EXPLORER)
    lines = re.findall(r'<line class="edge edge-cites"[^>]*>', picture)
    assert lines and picture.citations == len(lines)
    for line in lines:
        assert 'stroke-dasharray="6 3"' in line and 'marker-end="url(#graph-cites-a1)"' in line
        assert float(re.search(r'stroke-width="([\d.]+)"', line).group(1)) >= 2
    assert '<marker id="graph-cites-a1"' in picture
    assert _contrast(svg.EDGE_COLOURS["cites"], "#fbfcfd") >= 4.5
    # Drawn last, over every other line.
    edges = re.findall(r'<line class="edge edge-(\w+)"', picture)
    assert edges[-len(lines) :] == ["cites"] * len(lines)


def _contrast(one: str, other: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)

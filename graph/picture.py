"""What the graph pages draw: nodes and edges of four kinds, and their layout.

A neighbourhood (of a researcher or of a paper) is a list of nodes, each with
why it is there, and the edges between them; ``layout`` places them with a
seeded networkx layout so the same data always gives the same picture.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import networkx as nx
from django.db.models import F

from catalogue.models import Author, Citation

PERSON, PAPER, TOPIC, INSTITUTION = "person", "paper", "topic", "institution"
KINDS = (PERSON, PAPER, TOPIC, INSTITUTION)
KIND_LABELS = {
    PERSON: "People",
    PAPER: "Papers",
    TOPIC: "Topics",
    INSTITUTION: "Institutions",
}
# Links that can be switched on and off beside the node kinds: citations between papers.
CITATIONS = "citations"
SHOWABLE = (*KINDS, CITATIONS)
SHOW_LABELS = {**KIND_LABELS, CITATIONS: "Citations between papers"}
LAYOUT_SEED = 7


@dataclass
class Node:
    id: str
    kind: str
    label: str
    url: str
    weight: float
    why: str
    centre: bool = False
    hop: int = 1
    x: float = 0.0
    y: float = 0.0


@dataclass
class Edge:
    source: str
    target: str
    kind: str  # coauthor, wrote, topic, affiliation, cites (source cites target)
    weight: int = 1
    first_year: int | None = None
    last_year: int | None = None


@dataclass
class Neighbourhood:
    author_id: int | None
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    work_id: int | None = None  # set when a paper is the centre

    def by_kind(self) -> dict[str, list[Node]]:
        grouped: dict[str, list[Node]] = {kind: [] for kind in KINDS}
        for node in self.nodes:
            grouped[node.kind].append(node)
        for nodes in grouped.values():
            nodes.sort(key=lambda n: (not n.centre, -n.weight, n.label.lower()))
        return grouped

    def counts(self) -> dict[str, int]:
        counts = {kind: len(nodes) for kind, nodes in self.by_kind().items()}
        counts[CITATIONS] = sum(1 for edge in self.edges if edge.kind == "cites")
        return counts

    def as_dict(self) -> dict:
        return {
            "author": self.author_id,
            "nodes": [asdict(n) for n in self.nodes],
            "edges": [asdict(e) for e in self.edges],
        }


@dataclass
class Picture:
    """The nodes and edges gathered so far, in the order they are added."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def add(self, node: Node) -> None:
        self.nodes[node.id] = node

    def paper_keys(self) -> list[str]:
        return [key for key, node in self.nodes.items() if node.kind == PAPER]

    def finish(self, hood: Neighbourhood) -> Neighbourhood:
        """Keep the edges whose two ends are shown, and lay the picture out."""
        hood.nodes = list(self.nodes.values())
        hood.edges = [e for e in self.edges if e.source in self.nodes and e.target in self.nodes]
        layout(hood)
        return hood


IRREGULAR = {"person": "people"}


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {IRREGULAR.get(word, word + 's')}"


def person_url(author_id: int, name: str) -> str:
    return Author(pk=author_id, display_name=name).get_absolute_url()


def citation_edges(paper_keys: list[str]) -> list[Edge]:
    """A "cites" edge for each paper shown that cites another one shown (one query)."""
    ids = [int(key[1:]) for key in paper_keys]
    if len(ids) < 2:
        return []
    pairs = (
        Citation.objects.filter(citing_id__in=ids, cited_id__in=ids)
        .exclude(citing_id=F("cited_id"))
        .values_list("citing_id", "cited_id")
        .distinct()
        .order_by("citing_id", "cited_id")
    )
    return [Edge(f"w{citing}", f"w{cited}", "cites") for citing, cited in pairs]


def layout(hood: Neighbourhood) -> None:
    """Place the nodes in [-1, 1]² with a seeded spring layout, the researcher in the middle."""
    if not hood.nodes:
        return
    graph = nx.Graph()
    for node in hood.nodes:
        graph.add_node(node.id)
    for edge in hood.edges:
        strength = 1.0 + min(edge.weight, 20) / 4 if edge.kind == "coauthor" else 1.0
        graph.add_edge(edge.source, edge.target, weight=strength)
    centre = next((n.id for n in hood.nodes if n.centre), None)
    if len(hood.nodes) == 1:
        positions = {centre: (0.0, 0.0)}
    else:
        fixed = {centre: (0.0, 0.0)} if centre else None
        positions = nx.spring_layout(
            graph,
            pos=fixed,
            fixed=[centre] if centre else None,
            seed=LAYOUT_SEED,
            k=1.6 / (len(hood.nodes) ** 0.5),
            iterations=60,
            weight="weight",
        )
    # Scale into [-1, 1] around the centre so the picture fills its box.
    span = max((max(abs(x), abs(y)) for x, y in positions.values()), default=1.0) or 1.0
    for node in hood.nodes:
        x, y = positions[node.id]
        node.x, node.y = float(x) / span, float(y) / span

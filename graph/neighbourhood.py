"""The neighbourhood of a researcher: who and what sits around them, and why.

Built from the database with bounded queries (a top-N per step, never the whole
graph), then laid out with a seeded networkx layout so the same data always
gives the same picture:

1. close collaborators: the strongest co-author edges (joint works, then the
   most recent) of co-authors with at least ``CLOSE_COLLABORATOR_MIN_WORKS`` joint
   works (the researcher card counts the same people), optionally within a year
   range and with another minimum of joint works;
2. the strongest links among those collaborators;
3. for the explorer, a second hop: each of the closest collaborators' own
   strongest collaborators;
4. the researcher's top topics (from the metrics row kept after imports);
5. the institutions of the researcher and of the people shown;
6. the researcher's most connected recent papers: those written with the most
   of the people shown, newest first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from urllib.parse import urlencode

import networkx as nx
from django.db import connection
from django.db.models import F, Q
from django.urls import reverse

from graph.models import CoauthorEdge
from publications.metrics import CLOSE_COLLABORATOR_MIN_WORKS
from publications.models import Author, Authorship, Citation, Work

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
# Papers are picked among this many of the researcher's newest works.
RECENT_POOL = 200
# Links read to find them: the researcher's most recently added works.
SCAN_LIMIT = 2000


@dataclass(frozen=True)
class Limits:
    """How much of the neighbourhood to gather."""

    collaborators: int = 12
    links_among: int = 40
    second_hop_from: int = 0  # collaborators whose own collaborators are added
    second_hop_each: int = 0
    topics: int = 6
    papers: int = 6
    institutions: int = 8


SLICE = Limits()
EXPLORER = Limits(
    collaborators=40,
    links_among=150,
    second_hop_from=10,
    second_hop_each=5,
    topics=10,
    papers=12,
    institutions=15,
)


@dataclass(frozen=True)
class Filters:
    """What the explorer and the API let a visitor narrow down."""

    kinds: tuple[str, ...] = SHOWABLE
    year_from: int | None = None
    year_to: int | None = None
    # Close collaborators are co-authors of at least this many joint works, on the
    # researcher card and in the graph alike; a visitor may ask for fewer.
    min_joint: int = CLOSE_COLLABORATOR_MIN_WORKS


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


def _years(first: int | None, last: int | None) -> str:
    if not first:
        return ""
    return f", {first}" if first == last or not last else f", {first}–{last}"


IRREGULAR = {"person": "people"}


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {IRREGULAR.get(word, word + 's')}"


def person_url(author_id: int, name: str) -> str:
    return Author(pk=author_id, display_name=name).get_absolute_url()


def _search_url(**params) -> str:
    return reverse("search") + "?" + urlencode(params)


def _edge_filter(filters: Filters) -> Q:
    q = Q(joint_works__gte=max(filters.min_joint, 1))
    if filters.year_from is not None:
        q &= Q(last_year__gte=filters.year_from)
    if filters.year_to is not None:
        q &= Q(first_year__lte=filters.year_to)
    return q


def _strongest_edges(author_id: int, filters: Filters, limit: int) -> list[CoauthorEdge]:
    if limit <= 0:
        return []
    around = Q(author_low_id=author_id) | Q(author_high_id=author_id)
    return list(
        CoauthorEdge.objects.filter(around & _edge_filter(filters)).order_by(
            "-joint_works", "-last_year", "author_low_id", "author_high_id"
        )[:limit]
    )


def _other(edge: CoauthorEdge, author_id: int) -> int:
    return edge.author_high_id if edge.author_low_id == author_id else edge.author_low_id


def build(
    author: Author, *, limits: Limits = SLICE, filters: Filters | None = None
) -> Neighbourhood:
    """The neighbourhood of ``author`` within ``limits``, filtered, laid out."""
    filters = filters or Filters()
    kinds = set(filters.kinds) or set(KINDS)
    hood = Neighbourhood(author_id=author.pk)
    centre = f"a{author.pk}"

    # 1. Close collaborators (one query).
    first = _strongest_edges(author.pk, filters, limits.collaborators)
    people: dict[int, dict] = {}
    for edge in first:
        other = _other(edge, author.pk)
        people[other] = {"edge": edge, "hop": 1, "via": None}

    # 3. The second hop (one query per collaborator it starts from, bounded).
    if limits.second_hop_from and limits.second_hop_each:
        for edge in first[: limits.second_hop_from]:
            via = _other(edge, author.pk)
            for far in _strongest_edges(via, filters, limits.second_hop_each + 1):
                other = _other(far, via)
                if other != author.pk and other not in people:
                    people[other] = {"edge": far, "hop": 2, "via": via}

    # Names and institutions of everyone shown (one query); deleted or merged
    # records drop out here.
    shown = (
        Author.objects.visible()
        .filter(pk__in=[author.pk, *people])
        .select_related("last_known_institution")
        .only(
            "id",
            "display_name",
            "last_known_institution__id",
            "last_known_institution__name",
            "last_known_institution__ror",
        )
    )
    authors = {a.pk: a for a in shown}
    people = {pk: info for pk, info in people.items() if pk in authors}
    names = {pk: a.display_name for pk, a in authors.items()}
    names.setdefault(author.pk, author.display_name)

    nodes: dict[str, Node] = {}
    nodes[centre] = Node(
        id=centre,
        kind=PERSON,
        label=author.display_name,
        url=author.get_absolute_url(),
        weight=max((i["edge"].joint_works for i in people.values() if i["hop"] == 1), default=1),
        why="The researcher this graph is about",
        centre=True,
        hop=0,
    )
    edges: list[Edge] = []
    if PERSON in kinds:
        for pk, info in people.items():
            edge = info["edge"]
            years = _years(edge.first_year, edge.last_year)
            if info["hop"] == 1:
                joint = _plural(edge.joint_works, "joint work")
                why = f"Co-author of {author.display_name}: {joint}{years}"
                source = centre
            else:
                via = names.get(info["via"], "a collaborator")
                why = f"Co-author of {via}: {_plural(edge.joint_works, 'joint work')}{years}"
                source = f"a{info['via']}"
            nodes[f"a{pk}"] = Node(
                id=f"a{pk}",
                kind=PERSON,
                label=names[pk],
                url=person_url(pk, names[pk]),
                weight=edge.joint_works,
                why=why,
                hop=info["hop"],
            )
            edges.append(
                Edge(
                    source, f"a{pk}", "coauthor", edge.joint_works, edge.first_year, edge.last_year
                )
            )

        # 2. The strongest links among the people shown (one query).
        ids = list(people)
        if len(ids) > 1 and limits.links_among:
            seen = {(e.source, e.target) for e in edges} | {(e.target, e.source) for e in edges}
            among = CoauthorEdge.objects.filter(
                Q(author_low_id__in=ids) & Q(author_high_id__in=ids) & _edge_filter(filters)
            ).order_by("-joint_works", "-last_year", "author_low_id", "author_high_id")
            for link in among[: limits.links_among]:
                pair = (f"a{link.author_low_id}", f"a{link.author_high_id}")
                if pair in seen:
                    continue
                edges.append(
                    Edge(*pair, "coauthor", link.joint_works, link.first_year, link.last_year)
                )

    # 4. Topics, from the metrics row (no query when the page already has it).
    if TOPIC in kinds and limits.topics:
        metrics = getattr(author, "metrics", None) if _has_metrics(author) else None
        for topic in (metrics.topics_top if metrics else [])[: limits.topics]:
            key = f"t{topic['id']}"
            nodes[key] = Node(
                id=key,
                kind=TOPIC,
                label=topic["name"],
                url=reverse("topics:short", kwargs={"pk": topic["id"]}),
                weight=topic["works"],
                why=f"Topic of {_plural(topic['works'], 'work')} by {author.display_name}",
            )
            edges.append(Edge(centre, key, "topic", topic["works"]))

    # 5. Institutions of the people shown (already loaded).
    if INSTITUTION in kinds and limits.institutions:
        members: dict[int, list[int]] = defaultdict(list)
        details = {}
        for pk, person in authors.items():
            inst = person.last_known_institution
            if inst is None or (pk != author.pk and f"a{pk}" not in nodes):
                continue
            members[inst.pk].append(pk)
            details[inst.pk] = inst
        ranked = sorted(
            members,
            key=lambda i: (author.pk not in members[i], -len(members[i]), details[i].name),
        )[: limits.institutions]
        for inst_id in ranked:
            inst = details[inst_id]
            key = f"i{inst_id}"
            who = members[inst_id]
            if author.pk in who:
                why = f"Affiliation of {author.display_name}"
                if len(who) > 1:
                    why += f" and {_plural(len(who) - 1, 'collaborator')}"
            else:
                why = f"Affiliation of {_plural(len(who), 'collaborator')} shown"
            nodes[key] = Node(
                id=key,
                kind=INSTITUTION,
                label=inst.name,
                url=inst.get_absolute_url(),
                weight=len(who),
                why=why,
            )
            for pk in who:
                edges.append(Edge(f"a{pk}", key, "affiliation"))

    # 6. The most connected recent papers (two queries): among the researcher's
    # RECENT_POOL newest works, those written with the most people shown.
    if PAPER in kinds and limits.papers:
        shown_people = [pk for pk in people if f"a{pk}" in nodes]
        works = _works_of(author.pk)
        if filters.year_from is not None:
            works = works.filter(publication_year__gte=filters.year_from)
        if filters.year_to is not None:
            works = works.filter(publication_year__lte=filters.year_to)
        pool = list(
            works.order_by(F("publication_year").desc(nulls_last=True), "-id").values_list(
                "id", "publication_year", "title"
            )[:RECENT_POOL]
        )
        wrote = defaultdict(list)
        if pool:
            for work_id, person in Authorship.objects.filter(
                work_id__in=[w[0] for w in pool], author_id__in=shown_people
            ).values_list("work_id", "author_id"):
                wrote[work_id].append(person)
        order = {w[0]: i for i, w in enumerate(pool)}
        chosen = sorted(pool, key=lambda w: (-len(wrote[w[0]]), order[w[0]]))[: limits.papers]
        for work_id, year, title in chosen:
            key = f"w{work_id}"
            with_people = wrote[work_id]
            why = f"Work of {author.display_name}"
            if year:
                why += f" ({year})"
            if with_people:
                why += f" with {_plural(len(with_people), 'person')} shown here"
            nodes[key] = Node(
                id=key,
                kind=PAPER,
                label=title or f"Untitled work {work_id}",
                url=Work(pk=work_id, title=title).get_absolute_url(),
                weight=1 + len(with_people),
                why=why,
            )
            for person in [author.pk, *with_people]:
                edges.append(Edge(f"a{person}", key, "wrote"))

    if CITATIONS in kinds:
        edges.extend(citation_edges([k for k, n in nodes.items() if n.kind == PAPER]))
    hood.nodes = list(nodes.values())
    hood.edges = [e for e in edges if e.source in nodes and e.target in nodes]
    layout(hood)
    return hood


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


def _works_of(author_id: int):
    """The researcher's visible works, read by id from at most SCAN_LIMIT of their links.

    On PostgreSQL the ids are collected first (an index-only scan), so the works
    are fetched by primary key instead of scanning the work table for a join.
    """
    works = Work.objects.visible()
    if connection.vendor != "postgresql":
        return works.filter(authorships__author_id=author_id)
    return works.extra(  # noqa: S610 - a fixed clause with one bound parameter
        where=[
            "publications_work.id = ANY(ARRAY(SELECT work_id FROM publications_authorship "
            "WHERE author_id = %s ORDER BY work_id DESC LIMIT %s))"
        ],
        params=[author_id, SCAN_LIMIT],
    )


def _has_metrics(author: Author) -> bool:
    try:
        author.metrics  # noqa: B018 - loads or raises
    except Author.metrics.RelatedObjectDoesNotExist:
        return False
    return True


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

"""The neighbourhood of a paper: its authors, where they were, its topics and similar works.

The explorer re-centres on a paper when a visitor steps onto one, so a paper
needs a neighbourhood of its own. Like the researcher's, it is read with a
fixed number of bounded queries (a top-N per step, whatever the byline's
length) and laid out with the same seeded layout:

1. the authors, in byline order (the first ``authors`` of them);
2. their affiliations on this paper;
3. the paper's topics, primary first;
4. the most similar works (precomputed ``WorkSimilarity`` rows), each linked to
   the shown authors who wrote it too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from graph.neighbourhood import (
    INSTITUTION,
    PAPER,
    PERSON,
    TOPIC,
    Edge,
    Neighbourhood,
    Node,
    _plural,
    citation_edges,
    layout,
    person_url,
)
from publications.display import clip_line
from publications.models import Authorship, Work, WorkSimilarity, WorkTopic


@dataclass(frozen=True)
class PaperLimits:
    """How much of a paper's neighbourhood to gather."""

    authors: int = 30
    topics: int = 8
    similar: int = 10
    institutions: int = 12


PAPER_EXPLORER = PaperLimits()


def paper_label(work_id: int, title: str) -> str:
    """A paper's title as one line of plain text (imported titles may carry markup)."""
    return clip_line(title, "title") or f"Untitled work {work_id}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _reasons(value: object) -> str:
    """The similarity reasons as text, whatever shape the stored JSON has."""
    if not isinstance(value, list):
        return ""
    labels = [str(r.get("label", "")) for r in value[:3] if isinstance(r, dict)]
    return ", ".join(label for label in labels if label)


def build_paper(work: Work, *, limits: PaperLimits = PAPER_EXPLORER) -> Neighbourhood:
    """The neighbourhood of ``work`` within ``limits``, laid out (a fixed number of queries)."""
    centre = f"w{work.pk}"
    hood = Neighbourhood(author_id=None, work_id=work.pk)
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    nodes[centre] = Node(
        id=centre,
        kind=PAPER,
        label=paper_label(work.pk, work.title),
        url=work.get_absolute_url(),
        weight=1,
        why="The paper this graph is about"
        + (f" ({work.publication_year})" if work.publication_year else ""),
        centre=True,
        hop=0,
    )

    # 1. Authors in byline order (one query), visible records only.
    byline = list(
        Authorship.objects.of_visible_authors()
        .filter(work=work)
        .select_related("author")
        .only("id", "position", "author__id", "author__display_name")
        .order_by("position", "id")[: limits.authors]
    )
    total = len(byline)
    for rank, authorship in enumerate(byline, start=1):
        person = authorship.author
        key = f"a{person.pk}"
        nodes[key] = Node(
            id=key,
            kind=PERSON,
            label=person.display_name,
            url=person_url(person.pk, person.display_name),
            # The first and last authors lead, as bylines usually mean.
            weight=2 if rank == 1 or rank == total else 1,
            why=f"{_ordinal(rank)} author of this paper",
        )
        edges.append(Edge(key, centre, "wrote"))

    # 2. Their affiliations on this paper (one query).
    if byline and limits.institutions:
        through = Authorship.institutions.through
        members: dict[int, list[int]] = defaultdict(list)
        details = {}
        rows = (
            through.objects.filter(authorship_id__in=[a.pk for a in byline])
            .select_related("institution", "authorship")
            .only(
                "authorship__author_id", "institution__id", "institution__name", "institution__ror"
            )
            .order_by("institution_id", "authorship_id")[: limits.authors * 4]
        )
        for row in rows:
            members[row.institution.pk].append(row.authorship.author_id)
            details[row.institution.pk] = row.institution
        ranked = sorted(members, key=lambda i: (-len(members[i]), details[i].name))
        for inst_id in ranked[: limits.institutions]:
            inst = details[inst_id]
            key = f"i{inst_id}"
            who = members[inst_id]
            nodes[key] = Node(
                id=key,
                kind=INSTITUTION,
                label=inst.name,
                url=inst.get_absolute_url(),
                weight=len(who),
                why=f"Affiliation of {_plural(len(who), 'author')} of this paper",
            )
            edges.extend(Edge(f"a{pk}", key, "affiliation") for pk in who)

    # 3. Topics, primary first (one query).
    if limits.topics:
        for link in (
            WorkTopic.objects.filter(work=work)
            .select_related("topic")
            .only("score", "is_primary", "topic__id", "topic__name", "topic__key")
            .order_by("-is_primary", "-score", "id")[: limits.topics]
        ):
            topic = link.topic
            key = f"t{topic.pk}"
            nodes[key] = Node(
                id=key,
                kind=TOPIC,
                label=topic.name,
                url=topic.get_absolute_url(),
                weight=1 + max(link.score, 0.0),
                why="Primary topic of this paper" if link.is_primary else "Topic of this paper",
            )
            edges.append(Edge(centre, key, "topic"))

    # 4. The most similar works (one query), and which shown authors wrote them (one more).
    if limits.similar:
        similar = list(
            WorkSimilarity.objects.filter(work=work, similar__merged_into__isnull=True)
            .select_related("similar")
            .only("score", "reasons", "similar__id", "similar__title", "similar__publication_year")
            .order_by("-score", "similar_id")[: limits.similar]
        )
        for link in similar:
            other = link.similar
            key = f"w{other.pk}"
            reasons = _reasons(link.reasons)
            year = f" ({other.publication_year})" if other.publication_year else ""
            nodes[key] = Node(
                id=key,
                kind=PAPER,
                label=paper_label(other.pk, other.title),
                url=other.get_absolute_url(),
                weight=1 + max(link.score, 0.0),
                why=f"Similar work{year}" + (f": {reasons}" if reasons else ""),
            )
            edges.append(Edge(centre, key, "similar"))
        people = [a.author_id for a in byline]
        if similar and people:
            for work_id, author_id in Authorship.objects.filter(
                work_id__in=[link.similar_id for link in similar], author_id__in=people
            ).values_list("work_id", "author_id")[: limits.similar * limits.authors]:
                edges.append(Edge(f"a{author_id}", f"w{work_id}", "wrote"))

    edges.extend(citation_edges([k for k, n in nodes.items() if n.kind == PAPER]))
    hood.nodes = list(nodes.values())
    hood.edges = [e for e in edges if e.source in nodes and e.target in nodes]
    layout(hood)
    return hood


def work_for_graph(work_id: int) -> Work | None:
    """The work a paper graph is about, or None when there is no such record."""
    return (
        Work.objects.only("id", "title", "publication_year", "merged_into_id")
        .filter(pk=work_id)
        .first()
    )

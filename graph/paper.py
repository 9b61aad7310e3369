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

from catalogue.display import clip_line
from catalogue.models import Authorship, Work, WorkSimilarity, WorkTopic
from graph.picture import (
    INSTITUTION,
    PAPER,
    PERSON,
    TOPIC,
    Edge,
    Neighbourhood,
    Node,
    Picture,
    _plural,
    citation_edges,
    person_url,
)


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
    picture = Picture()
    picture.add(_centre_node(work))
    byline = _byline(work, limits.authors)
    _add_authors(picture, work, byline)
    if byline and limits.institutions:
        _add_institutions(picture, byline, limits)
    if limits.topics:
        _add_topics(picture, work, limits.topics)
    if limits.similar:
        _add_similar(picture, work, [a.author_id for a in byline], limits)
    picture.edges.extend(citation_edges(picture.paper_keys()))
    return picture.finish(Neighbourhood(author_id=None, work_id=work.pk))


def _centre_node(work: Work) -> Node:
    year = f" ({work.publication_year})" if work.publication_year else ""
    return Node(
        id=f"w{work.pk}",
        kind=PAPER,
        label=paper_label(work.pk, work.title),
        url=work.get_absolute_url(),
        weight=1,
        why=f"The paper this graph is about{year}",
        centre=True,
        hop=0,
    )


def _byline(work: Work, limit: int) -> list[Authorship]:
    """The first ``limit`` authors in byline order (one query), visible records only."""
    return list(
        Authorship.objects.of_visible_authors()
        .filter(work=work)
        .select_related("author")
        .only("id", "position", "author__id", "author__display_name")
        .order_by("position", "id")[:limit]
    )


def _add_authors(picture: Picture, work: Work, byline: list[Authorship]) -> None:
    total = len(byline)
    for rank, authorship in enumerate(byline, start=1):
        person = authorship.author
        key = f"a{person.pk}"
        picture.add(
            Node(
                id=key,
                kind=PERSON,
                label=person.display_name,
                url=person_url(person.pk, person.display_name),
                # The first and last authors lead, as bylines usually mean.
                weight=2 if rank == 1 or rank == total else 1,
                why=f"{_ordinal(rank)} author of this paper",
            )
        )
        picture.edges.append(Edge(key, f"w{work.pk}", "wrote"))


def _add_institutions(picture: Picture, byline: list[Authorship], limits: PaperLimits) -> None:
    """The authors' affiliations on this paper (one query), the most shared first."""
    through = Authorship.institutions.through
    members: dict[int, list[int]] = defaultdict(list)
    details = {}
    rows = (
        through.objects.filter(authorship_id__in=[a.pk for a in byline])
        .select_related("institution", "authorship")
        .only("authorship__author_id", "institution__id", "institution__name", "institution__ror")
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
        picture.add(
            Node(
                id=key,
                kind=INSTITUTION,
                label=inst.name,
                url=inst.get_absolute_url(),
                weight=len(who),
                why=f"Affiliation of {_plural(len(who), 'author')} of this paper",
            )
        )
        picture.edges.extend(Edge(f"a{pk}", key, "affiliation") for pk in who)


def _add_topics(picture: Picture, work: Work, limit: int) -> None:
    """The paper's topics, primary first (one query)."""
    links = (
        WorkTopic.objects.filter(work=work)
        .select_related("topic")
        .only("score", "is_primary", "topic__id", "topic__name", "topic__key")
        .order_by("-is_primary", "-score", "id")[:limit]
    )
    for link in links:
        topic = link.topic
        key = f"t{topic.pk}"
        picture.add(
            Node(
                id=key,
                kind=TOPIC,
                label=topic.name,
                url=topic.get_absolute_url(),
                weight=1 + max(link.score, 0.0),
                why="Primary topic of this paper" if link.is_primary else "Topic of this paper",
            )
        )
        picture.edges.append(Edge(f"w{work.pk}", key, "topic"))


def _add_similar(picture: Picture, work: Work, people: list[int], limits: PaperLimits) -> None:
    """The most similar works (one query), and which shown authors wrote them (one more)."""
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
        picture.add(
            Node(
                id=key,
                kind=PAPER,
                label=paper_label(other.pk, other.title),
                url=other.get_absolute_url(),
                weight=1 + max(link.score, 0.0),
                why=f"Similar work{year}" + (f": {reasons}" if reasons else ""),
            )
        )
        picture.edges.append(Edge(f"w{work.pk}", key, "similar"))
    if similar and people:
        wrote = Authorship.objects.filter(
            work_id__in=[link.similar_id for link in similar], author_id__in=people
        ).values_list("work_id", "author_id")
        for work_id, author_id in wrote[: limits.similar * limits.authors]:
            picture.edges.append(Edge(f"a{author_id}", f"w{work_id}", "wrote"))


def work_for_graph(work_id: int) -> Work | None:
    """The work a paper graph is about, or None when there is no such record."""
    return (
        Work.objects.only("id", "title", "publication_year", "merged_into_id")
        .filter(pk=work_id)
        .first()
    )

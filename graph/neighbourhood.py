"""The neighbourhood of a researcher: who and what sits around them, and why.

Built from the database with bounded queries (a top-N per step, never the whole
graph), then laid out with a seeded networkx layout so the same data always
gives the same picture:

1. close collaborators: the strongest co-author edges (joint works, then the
   most recent) of co-authors with at least ``CLOSE_COLLABORATOR_MIN_WORKS`` joint
   works (the researcher card counts the same people), optionally within a year
   range and with another minimum of joint works; for the explorer, a second
   hop: each of the closest collaborators' own strongest collaborators;
2. the strongest links among the people shown;
3. the researcher's top topics (from the metrics row kept after imports);
4. the institutions of the researcher and of the people shown;
5. the researcher's most connected recent papers: those written with the most
   of the people shown, newest first;
6. citations between the papers shown.

Each step is a function of its own (``_collaborators``, ``_add_people``,
``_add_links_among``, ``_add_topics``, ``_add_institutions``, ``_add_papers``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import F, Q
from django.urls import reverse

from catalogue.metrics import CLOSE_COLLABORATOR_MIN_WORKS
from catalogue.models import Author, Authorship, Work
from graph.models import CoauthorEdge
from graph.picture import (  # noqa: F401 - the kinds and shapes are read from here too
    CITATIONS,
    INSTITUTION,
    KIND_LABELS,
    KINDS,
    PAPER,
    PERSON,
    SHOW_LABELS,
    SHOWABLE,
    TOPIC,
    Edge,
    Neighbourhood,
    Node,
    Picture,
    _plural,
    citation_edges,
    layout,
    person_url,
)

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


def _years(first: int | None, last: int | None) -> str:
    if not first:
        return ""
    return f", {first}" if first == last or not last else f", {first}–{last}"


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


@dataclass
class _Person:
    edge: CoauthorEdge  # the link that brings this person in
    hop: int
    via: int | None = None  # the collaborator a second-hop person is reached through


def build(
    author: Author, *, limits: Limits = SLICE, filters: Filters | None = None
) -> Neighbourhood:
    """The neighbourhood of ``author`` within ``limits``, filtered, laid out."""
    filters = filters or Filters()
    kinds = set(filters.kinds) or set(KINDS)
    people = _collaborators(author.pk, filters, limits)
    shown = _shown_authors(author.pk, people)
    people = {pk: person for pk, person in people.items() if pk in shown}
    picture = Picture()
    picture.add(_centre_node(author, people))
    if PERSON in kinds:
        _add_people(picture, author, people, shown)
        _add_links_among(picture, list(people), filters, limits.links_among)
    if TOPIC in kinds and limits.topics:
        _add_topics(picture, author, limits.topics)
    if INSTITUTION in kinds and limits.institutions:
        _add_institutions(picture, author, shown, limits.institutions)
    if PAPER in kinds and limits.papers:
        shown_people = [pk for pk in people if f"a{pk}" in picture.nodes]
        _add_papers(picture, author, shown_people, filters, limits.papers)
    if CITATIONS in kinds:
        picture.edges.extend(citation_edges(picture.paper_keys()))
    return picture.finish(Neighbourhood(author_id=author.pk))


def _collaborators(author_id: int, filters: Filters, limits: Limits) -> dict[int, _Person]:
    """Close collaborators (one query), then the bounded second hop (one query each)."""
    first = _strongest_edges(author_id, filters, limits.collaborators)
    people = {_other(edge, author_id): _Person(edge, hop=1) for edge in first}
    if not (limits.second_hop_from and limits.second_hop_each):
        return people
    for edge in first[: limits.second_hop_from]:
        via = _other(edge, author_id)
        for far in _strongest_edges(via, filters, limits.second_hop_each + 1):
            other = _other(far, via)
            if other != author_id and other not in people:
                people[other] = _Person(far, hop=2, via=via)
    return people


def _shown_authors(author_id: int, people: dict[int, _Person]) -> dict[int, Author]:
    """Names and institutions of everyone shown (one query); merged or deleted records drop out."""
    shown = (
        Author.objects.visible()
        .filter(pk__in=[author_id, *people])
        .select_related("last_known_institution")
        .only(
            "id",
            "display_name",
            "last_known_institution__id",
            "last_known_institution__name",
            "last_known_institution__ror",
        )
    )
    return {a.pk: a for a in shown}


def _centre_node(author: Author, people: dict[int, _Person]) -> Node:
    return Node(
        id=f"a{author.pk}",
        kind=PERSON,
        label=author.display_name,
        url=author.get_absolute_url(),
        weight=max((p.edge.joint_works for p in people.values() if p.hop == 1), default=1),
        why="The researcher this graph is about",
        centre=True,
        hop=0,
    )


def _add_people(
    picture: Picture, author: Author, people: dict[int, _Person], shown: dict[int, Author]
) -> None:
    """A node per collaborator, linked to the researcher or to the collaborator it came by."""
    for pk, person in people.items():
        edge = person.edge
        joint = _plural(edge.joint_works, "joint work")
        years = _years(edge.first_year, edge.last_year)
        if person.hop == 1:
            source, via = f"a{author.pk}", author.display_name
        else:
            source = f"a{person.via}"
            via = shown[person.via].display_name if person.via in shown else "a collaborator"
        name = shown[pk].display_name
        picture.add(
            Node(
                id=f"a{pk}",
                kind=PERSON,
                label=name,
                url=person_url(pk, name),
                weight=edge.joint_works,
                why=f"Co-author of {via}: {joint}{years}",
                hop=person.hop,
            )
        )
        picture.edges.append(
            Edge(source, f"a{pk}", "coauthor", edge.joint_works, edge.first_year, edge.last_year)
        )


def _add_links_among(picture: Picture, ids: list[int], filters: Filters, limit: int) -> None:
    """The strongest co-author links among the people shown (one query)."""
    if len(ids) < 2 or not limit:
        return
    seen = {(e.source, e.target) for e in picture.edges}
    seen |= {(target, source) for source, target in seen}
    among = CoauthorEdge.objects.filter(
        Q(author_low_id__in=ids) & Q(author_high_id__in=ids) & _edge_filter(filters)
    ).order_by("-joint_works", "-last_year", "author_low_id", "author_high_id")
    for link in among[:limit]:
        pair = (f"a{link.author_low_id}", f"a{link.author_high_id}")
        if pair not in seen:
            picture.edges.append(
                Edge(*pair, "coauthor", link.joint_works, link.first_year, link.last_year)
            )


def _add_topics(picture: Picture, author: Author, limit: int) -> None:
    """The researcher's top topics, from the metrics row (no query when it is loaded)."""
    metrics = author.metrics if _has_metrics(author) else None
    for topic in (metrics.topics_top if metrics else [])[:limit]:
        key = f"t{topic['id']}"
        picture.add(
            Node(
                id=key,
                kind=TOPIC,
                label=topic["name"],
                url=reverse("publications:topic-short", kwargs={"pk": topic["id"]}),
                weight=topic["works"],
                why=f"Topic of {_plural(topic['works'], 'work')} by {author.display_name}",
            )
        )
        picture.edges.append(Edge(f"a{author.pk}", key, "topic", topic["works"]))


def _add_institutions(
    picture: Picture, author: Author, shown: dict[int, Author], limit: int
) -> None:
    """The institutions of the researcher and of the people shown (already loaded)."""
    members: dict[int, list[int]] = defaultdict(list)
    details = {}
    for pk, person in shown.items():
        inst = person.last_known_institution
        if inst is None or (pk != author.pk and f"a{pk}" not in picture.nodes):
            continue
        members[inst.pk].append(pk)
        details[inst.pk] = inst
    ranked = sorted(
        members, key=lambda i: (author.pk not in members[i], -len(members[i]), details[i].name)
    )
    for inst_id in ranked[:limit]:
        who = members[inst_id]
        if author.pk in who:
            why = f"Affiliation of {author.display_name}"
            if len(who) > 1:
                why += f" and {_plural(len(who) - 1, 'collaborator')}"
        else:
            why = f"Affiliation of {_plural(len(who), 'collaborator')} shown"
        inst = details[inst_id]
        key = f"i{inst_id}"
        picture.add(
            Node(
                id=key,
                kind=INSTITUTION,
                label=inst.name,
                url=inst.get_absolute_url(),
                weight=len(who),
                why=why,
            )
        )
        picture.edges.extend(Edge(f"a{pk}", key, "affiliation") for pk in who)


def _recent_pool(author_id: int, filters: Filters) -> list[tuple[int, int | None, str]]:
    """The researcher's RECENT_POOL newest works in the year range: (id, year, title)."""
    works = _works_of(author_id)
    if filters.year_from is not None:
        works = works.filter(publication_year__gte=filters.year_from)
    if filters.year_to is not None:
        works = works.filter(publication_year__lte=filters.year_to)
    ordered = works.order_by(F("publication_year").desc(nulls_last=True), "-id")
    return list(ordered.values_list("id", "publication_year", "title")[:RECENT_POOL])


def _add_papers(
    picture: Picture, author: Author, people: list[int], filters: Filters, limit: int
) -> None:
    """The most connected recent papers (two queries): those written with the most people shown."""
    pool = _recent_pool(author.pk, filters)
    wrote = defaultdict(list)
    if pool:
        for work_id, person in Authorship.objects.filter(
            work_id__in=[w[0] for w in pool], author_id__in=people
        ).values_list("work_id", "author_id"):
            wrote[work_id].append(person)
    order = {w[0]: i for i, w in enumerate(pool)}
    chosen = sorted(pool, key=lambda w: (-len(wrote[w[0]]), order[w[0]]))[:limit]
    for work_id, year, title in chosen:
        key = f"w{work_id}"
        with_people = wrote[work_id]
        why = f"Work of {author.display_name}"
        if year:
            why += f" ({year})"
        if with_people:
            why += f" with {_plural(len(with_people), 'person')} shown here"
        picture.add(
            Node(
                id=key,
                kind=PAPER,
                label=title or f"Untitled work {work_id}",
                url=Work(pk=work_id, title=title).get_absolute_url(),
                weight=1 + len(with_people),
                why=why,
            )
        )
        picture.edges.extend(
            Edge(f"a{person}", key, "wrote") for person in [author.pk, *with_people]
        )


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

"""Records and works for the identity tests: people, their works, co-authors and topics."""

from __future__ import annotations

from itertools import count

from catalogue.models import Author, Topic, Work, WorkTopic
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

_ids = count(5_000_000_001)


def person(name: str, *, openalex: bool = True, orcid: str | None = None) -> Author:
    """A record as an import makes it: with an OpenAlex id, unless ``openalex`` is False."""
    openalex_id = f"A{next(_ids)}" if openalex else None
    return AuthorFactory(display_name=name, openalex_id=openalex_id, orcid=orcid)


def topic(name: str) -> Topic:
    key = "openalex:" + name.lower().replace(" ", "-")
    return Topic.objects.get_or_create(key=key, defaults={"name": name, "kind": "topic"})[0]


def work_by(authors, title: str, *, year: int = 2020, topics=(), printed=None) -> Work:
    """A work with ``authors`` in order (each printed as ``printed[i]`` if given)."""
    work = WorkFactory(title=title, publication_year=year)
    for position, author in enumerate(authors):
        name = printed[position] if printed else author.display_name
        AuthorshipFactory(work=work, author=author, position=position, raw_name=name)
    for name in topics:
        WorkTopic.objects.create(work=work, topic=topic(name), source="openalex")
    return work


def circle(names: list[str]) -> list[Author]:
    """Co-authors, each a record of their own."""
    return [person(name) for name in names]


# One record holding two people, and the pieces to build others like it ---------

NORTH = ["Ingrid Halvorsen", "Per Lindqvist", "Anna Berg", "Olav Dahl", "Sigrid Moe"]
NORTH += ["Erik Strand", "Karin Lund", "Nils Vik"]
SOUTH = ["Chiara Benedetti", "Marco Ricci", "Giulia Ferri", "Luca Moretti", "Sara Greco"]
SOUTH += ["Paolo Conti", "Elena Bruno", "Davide Gallo"]
ICE = [
    "Meltwater routing under alpine glaciers",
    "Basal sliding of temperate glaciers",
    "Supraglacial lakes and meltwater drainage",
    "Calving fronts of tidewater glaciers",
    "Firn densification on polar ice caps",
    "Subglacial hydrology of surging glaciers",
]
FOLDS = [
    "Chaperones and misfolded proteins",
    "Folding kinetics of small protein domains",
    "Intrinsically disordered regions in signalling",
    "Amyloid aggregation under crowding",
    "Allostery in enzyme conformational ensembles",
]


def works_with(record, people, titles, *, first_year, topic, core=None):
    """One work per title, each with the circle's core member and two others in turn."""
    core = core or people[0]
    others = [p for p in people if p != core]
    made = []
    for n, title in enumerate(titles):
        pair = [others[(2 * n) % len(others)], others[(2 * n + 1) % len(others)]]
        made.append(work_by([record, core, *pair], title, year=first_year + n, topics=[topic]))
    return made


def two_people_record():
    """One record holding two people: two co-author circles, topics and decades apart.

    Returns the record, the early works (5), the late works (4) and both circles."""
    daniel = person("Daniel Okafor")
    north, south = circle(NORTH), circle(SOUTH)
    old = works_with(daniel, north, ICE[:5], first_year=1988, topic="Glaciology")
    new = works_with(daniel, south, FOLDS[:4], first_year=2016, topic="Protein folding")
    return daniel, old, new, north, south

"""A small known co-author graph.

    works:  w1 (2018) Ada, Bob, Cy          w4 (2021) Ada, Dee
            w2 (2019) Ada, Bob              w5 (2022) Eve, Fay      (not Ada's)
            w3 (2020) Bob, Cy               w6 (2023) Ada alone

So Ada's collaborators are Bob (2 joint works), Cy (1) and Dee (1); Bob and Cy
are linked (2); Eve and Fay are a pair of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from catalogue.models import Author, Work
from graph import edges
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

AUTHORSHIPS = {
    "w1": (2018, ["ada", "bob", "cy"]),
    "w2": (2019, ["ada", "bob"]),
    "w3": (2020, ["bob", "cy"]),
    "w4": (2021, ["ada", "dee"]),
    "w5": (2022, ["eve", "fay"]),
    "w6": (2023, ["ada"]),
}


@dataclass
class Known:
    people: dict[str, Author]
    works: dict[str, Work]

    def pk(self, name: str) -> int:
        return self.people[name].pk

    def edges(self) -> set[tuple]:
        from graph.models import CoauthorEdge

        names = {a.pk: n for n, a in self.people.items()}
        return {
            (
                names[e.author_low_id],
                names[e.author_high_id],
                e.joint_works,
                e.first_year,
                e.last_year,
            )
            for e in CoauthorEdge.objects.all()
        }


def link(work: Work, people: list[Author]) -> None:
    for position, person in enumerate(people):
        AuthorshipFactory(work=work, author=person, position=position)


@pytest.fixture
def known(db) -> Known:
    lab = InstitutionFactory(name="Lab of Examples", ror="05abcde12")
    people = {
        name: AuthorFactory(display_name=name.title() + " Example", last_known_institution=lab)
        for name in ["ada", "bob", "cy", "dee", "eve", "fay"]
    }
    works = {}
    for key, (year, names) in AUTHORSHIPS.items():
        works[key] = WorkFactory(title=f"Work {key}", publication_year=year)
        link(works[key], [people[n] for n in names])
    edges.edges_rebuild()
    return Known(people, works)


@pytest.fixture
def empty_cache():
    """A cache emptied before and after the test: slices and pages are kept there."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def crowded_researcher(collaborators: int = 45):
    """A researcher with ``collaborators`` close collaborators of long names, two joint works each."""
    hub = AuthorFactory(display_name="Crowded Hub Researcher")
    people = [
        AuthorFactory(display_name=f"Bartholomew Konstantinos Vandenberghe-Oosterhuis {n:02d}")
        for n in range(collaborators)
    ]
    for n, person in enumerate(people):
        for part in (1, 2):
            link(
                WorkFactory(title=f"Joint work {n}, part {part}", publication_year=2020),
                [hub, person],
            )
    edges.edges_rebuild()
    return hub, people

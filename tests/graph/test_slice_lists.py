"""The researcher page's graph slice lists neighbours, never the researcher at its centre,
and its legend draws each centre in the shape the picture gives it."""

import re

import pytest
from django.urls import reverse

from graph import edges
from tests.factories import AuthorFactory, WorkFactory
from tests.graph.conftest import link

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]


def lists(html: str) -> dict[str, list[str]]:
    """The names under each heading of the slice's lists."""
    found = {}
    for kind, body in re.findall(
        r'<section class="graph-list" data-kind="(\w+)">(.*?)</section>', html, re.S
    ):
        found[kind] = re.findall(r'<li><a href="[^"]*">([^<]*)</a>', body)
    return found


def slice_of(client, author) -> str:
    return client.get(reverse("graph:slice", args=[author.pk])).content.decode()


def test_a_researcher_alone_gets_no_empty_people_list(client):
    alone = AuthorFactory(display_name="Solo Writer")
    link(WorkFactory(title="A paper written alone", publication_year=2020), [alone])
    edges.edges_rebuild()
    html = slice_of(client, alone)
    assert "A paper written alone" in html
    assert "person" not in lists(html)  # no "People" heading with nothing under it
    assert re.search(r'value="person" disabled> People <span class="chip">0</span>', html)


def test_the_people_list_shows_six_co_authors(client):
    centre = AuthorFactory(display_name="Hub Person")
    others = [AuthorFactory(display_name=f"Co Author {n}") for n in range(8)]
    for title in ("A big collaboration", "Its sequel"):  # two joint works each
        link(WorkFactory(title=title, publication_year=2021), [centre, *others])
    edges.edges_rebuild()
    html = slice_of(client, centre)
    people = lists(html)["person"]
    assert len(people) == 6
    assert "Hub Person" not in people
    assert '<span class="chip">8</span>' in html  # the People tab counts the co-authors


def test_the_legend_draws_the_centre_paper_as_a_square(client):
    author = AuthorFactory(display_name="Paper Author")
    work = WorkFactory(title="The centre paper", publication_year=2022)
    link(work, [author])
    edges.edges_rebuild()
    paper = client.get(reverse("graph:work-explorer", args=[work.pk])).content.decode()
    legend = re.search(r'<ul class="graph-legend".*?</ul>', paper, re.S).group(0)
    assert (
        '<rect x="2" y="2" width="16" height="16" rx="2" fill="#c2410c"/></svg>This paper' in legend
    )
    person = client.get(reverse("graph:explorer", args=[author.pk])).content.decode()
    legend = re.search(r'<ul class="graph-legend".*?</ul>', person, re.S).group(0)
    assert '<circle cx="10" cy="10" r="8" fill="#c2410c"/></svg>This researcher' in legend

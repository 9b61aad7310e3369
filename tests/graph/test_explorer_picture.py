"""The explorer and the slice as pages: a dense record is grouped and listed in full,
the legend names what the picture draws, and names overlap nothing on the page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from graph import edges
from graph.crowd import EXPLORER_CAPS
from tests.factories import AuthorFactory, WorkFactory
from tests.graph.conftest import crowded_researcher, link
from tests.graph.test_citation_edges import cite
from tests.graph.test_picture_readable import overlaps

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]


def explorer(client, pk: int, query: dict | None = None) -> str:
    response = client.get(reverse("graph:explorer", args=[pk]), query or {})
    assert response.status_code == 200
    return response.content.decode()


def picture_of(html: str) -> str:
    return re.search(r'<svg class="graph-svg".*?</svg>', html, re.S).group(0)


def legend_of(html: str) -> str:
    return re.search(r'<ul class="graph-legend".*?</ul>', html, re.S).group(0)


@pytest.fixture
def crowded(db):
    """A researcher with 45 close collaborators of long names (two joint works each)."""
    return crowded_researcher(45)


def test_a_crowded_explorer_groups_the_picture_and_lists_everyone(client, crowded):
    hub, people = crowded
    html = explorer(client, hub.pk)
    picture = picture_of(html)
    drawn = re.findall(r'data-node="a(\d+)"', picture)
    assert len(drawn) == EXPLORER_CAPS.person  # the researcher and 19 co-authors
    rest = 40 - (EXPLORER_CAPS.person - 1)  # the explorer gathers 40 collaborators
    assert '<a class="node node-person node-group" href="#graph-list-person"' in picture
    assert f"+{rest} more people" in picture
    listed = re.search(r'id="graph-list-person">(.*?)</section>', html, re.S).group(1)
    assert listed.count("<li") == 41  # the researcher and every collaborator gathered
    assert overlaps(picture) == []
    assert "A stack: more of a kind, named in the list" in legend_of(html)


def test_a_small_explorer_draws_every_node_and_shows_no_stack(client, known):
    html = explorer(client, known.pk("ada"))
    assert "node-group" not in html
    assert "A stack" not in legend_of(html)
    assert overlaps(picture_of(html)) == []


def test_the_legend_names_citation_links_when_the_picture_draws_them(client, known):
    ada = known.pk("ada")
    assert "citing another" not in legend_of(explorer(client, ada))
    cite(known.works["w4"], known.works["w1"])
    html = explorer(client, ada, {"min_joint": 1})
    legend = legend_of(html)
    assert "Dashed arrow: a paper citing another" in legend
    assert 'stroke="#9d174d"' in legend and 'stroke-dasharray="5 3"' in legend
    assert 'class="edge edge-cites"' in picture_of(html)
    switched_off = explorer(client, ada, {"min_joint": 1, "kinds": ["person", "paper"]})
    assert "citing another" not in legend_of(switched_off)


def test_the_slice_names_every_neighbour_it_draws(client):
    centre = AuthorFactory(display_name="Hub Person")
    others = [AuthorFactory(display_name=f"Co Author {n}") for n in range(8)]
    for title in ("A big collaboration", "Its sequel"):
        link(WorkFactory(title=title, publication_year=2021), [centre, *others])
    edges.edges_rebuild()
    html = client.get(reverse("graph:slice", args=[centre.pk])).content.decode()
    people = re.search(r'data-kind="person">(.*?)</section>', html, re.S).group(1)
    named = re.findall(r'<a href="[^"]*">(Co Author \d)</a>', people)
    assert sorted(named) == [f"Co Author {n}" for n in range(8)]
    assert "Also in the picture:" in people
    assert overlaps(picture_of(html)) == []

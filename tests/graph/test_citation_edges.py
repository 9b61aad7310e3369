"""Papers that cite each other are linked in the explorer; the link kind can be switched off."""

from __future__ import annotations

import pytest
from django.urls import reverse

from catalogue.models import Author, Citation, WorkSimilarity
from graph import neighbourhood, paper, svg
from graph.neighbourhood import EXPLORER, KINDS, Filters

pytestmark = pytest.mark.django_db


def cite(citing, cited) -> None:
    Citation.objects.create(
        citing=citing,
        citing_openalex_id=f"W{citing.pk}",
        cited_openalex_id=f"W{cited.pk}",
        cited=cited,
    )


def ada(known) -> Author:
    return Author.objects.select_related("metrics", "last_known_institution").get(
        pk=known.pk("ada")
    )


def cites_edges(hood) -> set[tuple[str, str]]:
    labels = {n.id: n.label for n in hood.nodes}
    return {(labels[e.source], labels[e.target]) for e in hood.edges if e.kind == "cites"}


@pytest.fixture
def citing(known):
    works = known.works
    cite(works["w4"], works["w1"])
    cite(works["w6"], works["w4"])
    cite(works["w2"], works["w5"])  # w5 is not Ada's: not among the papers shown
    return works


def test_papers_shown_that_cite_each_other_are_linked(known, citing):
    hood = neighbourhood.build(ada(known), limits=EXPLORER, filters=Filters(min_joint=1))
    titles = {key: citing[key].title for key in ("w1", "w4", "w6")}
    assert cites_edges(hood) == {(titles["w4"], titles["w1"]), (titles["w6"], titles["w4"])}
    assert hood.counts()["citations"] == 2
    picture = svg.draw(hood, size=600, title="graph")
    assert picture.count('class="edge edge-cites"') == 2


def test_citations_can_be_switched_off(known, citing):
    hood = neighbourhood.build(ada(known), limits=EXPLORER, filters=Filters(kinds=KINDS))
    assert cites_edges(hood) == set()
    assert any(n.kind == "paper" for n in hood.nodes)


def test_the_explorer_form_and_api_switch_citations(client, known, citing):
    url = reverse("graph:explorer", args=[known.pk("ada")])
    html = client.get(url).content.decode()
    assert "Citations between papers" in html and "edge-cites" in html
    html = client.get(url, {"kinds": ["person", "paper"]}).content.decode()
    assert "edge-cites" not in html
    api = reverse("api:author-graph", args=[known.pk("ada")])
    body = client.get(api, {"scope": "explorer"}).json()
    assert sum(e["kind"] == "cites" for e in body["edges"]) == 2
    body = client.get(api, {"scope": "explorer", "kinds": "person,paper"}).json()
    assert not any(e["kind"] == "cites" for e in body["edges"])


def test_the_paper_explorer_links_the_papers_it_shows_that_cite_each_other(client, known, citing):
    for other in ("w1", "w6"):
        WorkSimilarity.objects.create(work=citing["w4"], similar=citing[other], score=0.5)
    hood = paper.build_paper(paper.work_for_graph(citing["w4"].pk))
    edges = {(e.source, e.target) for e in hood.edges if e.kind == "cites"}
    pk = {key: f"w{citing[key].pk}" for key in ("w1", "w4", "w6")}
    assert edges == {(pk["w4"], pk["w1"]), (pk["w6"], pk["w4"])}

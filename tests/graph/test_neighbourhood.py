"""The neighbourhood on the small known graph: who is in, who is out, the weights."""

import pytest

from catalogue.models import Author, AuthorMetrics
from graph import neighbourhood, svg
from graph.neighbourhood import EXPLORER, SLICE, Filters
from tests.factories import AuthorFactory, WorkFactory
from tests.graph.conftest import link

pytestmark = pytest.mark.django_db


EVERY_COAUTHOR = Filters(min_joint=1)


def build(author, *, limits=SLICE, filters=EVERY_COAUTHOR):
    """The neighbourhood with every co-author in it (the known graph has many with one work)."""
    return neighbourhood.build(author, limits=limits, filters=filters)


def people(hood) -> dict[str, float]:
    return {n.label: n.weight for n in hood.nodes if n.kind == "person"}


def ada_of(known) -> Author:
    AuthorMetrics.objects.update_or_create(
        author=known.people["ada"],
        defaults={"topics_top": [{"id": 9, "name": "Example topology", "key": "T9", "works": 3}]},
    )
    return Author.objects.select_related("metrics", "last_known_institution").get(
        pk=known.pk("ada")
    )


def test_by_default_only_close_collaborators_are_drawn(known):
    """Close collaborators mean what the researcher card counts: two or more joint works."""
    ada = ada_of(known)
    hood = neighbourhood.build(ada)
    assert people(hood) == {"Ada Example": 2, "Bob Example": 2}


def test_close_collaborators_with_their_joint_works(known):
    hood = build(ada_of(known))
    assert people(hood) == {"Ada Example": 2, "Bob Example": 2, "Cy Example": 1, "Dee Example": 1}
    centre = [n for n in hood.nodes if n.centre]
    assert [n.label for n in centre] == ["Ada Example"]


def test_the_pair_who_never_wrote_with_her_is_out(known):
    labels = {n.label for n in build(ada_of(known)).nodes}
    assert "Eve Example" not in labels and "Fay Example" not in labels


def test_links_among_collaborators_are_drawn(known):
    hood = build(ada_of(known))
    ids = {n.id: n.label for n in hood.nodes}
    coauthor = {
        (ids[e.source], ids[e.target], e.weight) for e in hood.edges if e.kind == "coauthor"
    }
    assert ("Bob Example", "Cy Example", 2) in coauthor
    assert ("Ada Example", "Bob Example", 2) in coauthor


def test_papers_most_connected_first_then_newest(known):
    hood = build(ada_of(known))
    papers = [n.label for n in hood.nodes if n.kind == "paper"]
    assert papers == ["Work w1", "Work w4", "Work w2", "Work w6"]
    w1 = next(n for n in hood.nodes if n.label == "Work w1")
    assert w1.why == "Work of Ada Example (2018) with 2 people shown here"


def test_topics_from_the_metrics_row_and_the_shared_institution(known):
    hood = build(ada_of(known))
    topic = next(n for n in hood.nodes if n.kind == "topic")
    assert (topic.label, topic.weight) == ("Example topology", 3)
    assert topic.url.startswith("/topics/")  # the topic's own page on this site
    (lab,) = [n for n in hood.nodes if n.kind == "institution"]
    assert lab.weight == 4
    assert lab.why == "Affiliation of Ada Example and 3 collaborators"
    assert lab.url.startswith("/institutions/")  # its page links on to ROR


def test_filters_by_minimum_joint_works_years_and_kinds(known):
    ada = ada_of(known)
    assert set(people(build(ada, filters=Filters(min_joint=2)))) == {"Ada Example", "Bob Example"}
    assert set(people(build(ada, filters=Filters(year_from=2020, min_joint=1)))) == {
        "Ada Example",
        "Dee Example",
    }
    only_people = build(ada, filters=Filters(kinds=("person",), min_joint=1))
    assert {n.kind for n in only_people.nodes} == {"person"}


def test_the_explorer_adds_a_second_hop(known):
    gus = AuthorFactory(display_name="Gus Example")
    link(WorkFactory(title="Bob and Gus", publication_year=2024), [known.people["bob"], gus])
    from graph import edges

    edges.edges_refresh([gus.pk, known.pk("bob")])
    ada = ada_of(known)
    assert "Gus Example" not in people(build(ada, limits=SLICE))
    hood = build(ada, limits=EXPLORER)
    gus_node = next(n for n in hood.nodes if n.label == "Gus Example")
    assert gus_node.hop == 2
    assert gus_node.why == "Co-author of Bob Example: 1 joint work, 2024"


def test_the_layout_is_stable_and_inside_the_box(known):
    ada = ada_of(known)
    first = [(n.id, n.x, n.y) for n in build(ada).nodes]
    again = [(n.id, n.x, n.y) for n in build(ada).nodes]
    assert first == again
    assert all(-1.0 <= x <= 1.0 and -1.0 <= y <= 1.0 for _, x, y in first)
    centre = next(n for n in build(ada).nodes if n.centre)
    assert (centre.x, centre.y) == (0.0, 0.0)


def test_a_researcher_with_thousands_of_coauthors_is_bounded(db, django_assert_max_num_queries):
    star = AuthorFactory(display_name="Star Example")
    from graph import edges

    crowd = AuthorFactory.create_batch(1500)
    team = edges.MAX_BYLINE - 1  # bylines the edges count
    for start in range(0, len(crowd), team):
        link(
            WorkFactory(title=f"Collaboration, part {start}"), [star, *crowd[start : start + team]]
        )
    link(WorkFactory(title="A smaller one"), [star, *crowd[:3]])

    edges.edges_rebuild()
    with django_assert_max_num_queries(8):
        hood = build(star)
    assert len([n for n in hood.nodes if n.kind == "person"]) == SLICE.collaborators + 1
    top = sorted(people(hood).items(), key=lambda kv: -kv[1])[1:4]
    assert all(weight == 2 for _, weight in top)
    with django_assert_max_num_queries(8 + EXPLORER.second_hop_from):
        big = build(star, limits=EXPLORER)
    assert len(big.nodes) <= 150


def test_the_svg_escapes_names_and_draws_a_shape_per_kind(known):
    ada = known.people["ada"]
    ada.display_name = '<script>alert("x")</script> Ada'
    ada.save(update_fields=["display_name"])
    hood = build(ada_of(known))
    drawn = str(svg.draw(hood, title="Graph"))
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn
    assert drawn.count("<a ") == len(hood.nodes)
    for shape in ("<circle", "<rect", "<polygon"):
        assert shape in drawn
    assert "<title>Bob Example: Co-author of" in drawn


def test_kinds_and_labels_agree():
    assert set(neighbourhood.KIND_LABELS) == set(neighbourhood.KINDS)

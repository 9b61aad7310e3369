"""Institution, venue and topic pages: who and what we hold for each, paged, in a fixed budget."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import AuthorInstitution, Topic, WorkTopic
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _world(size: int, tag: str = ""):
    """``size`` works at one venue, on one topic, written at one institution."""
    institution = InstitutionFactory(
        name="Université de Montréal",
        ror=f"0161xgx34{tag}",
        openalex_id=f"I70931966{tag}",
        country_code="CA",
    )
    venue = VenueFactory(
        name="Journal of Graphs", openalex_id=f"S1983995261{tag}", issn_l="2167-8359"
    )
    topic = Topic.objects.create(
        key=f"openalex:T10102{tag}", name="Graph neural networks", kind="topic"
    )
    for n in range(size):
        work = WorkFactory(
            title=f"Graph study {tag}{n}", venue=venue, publication_year=2000 + n % 20
        )
        WorkTopic.objects.create(work=work, topic=topic, source="openalex")
        for position in range(2):
            author = AuthorFactory(display_name=f"Researcher {tag}{n:03d}-{position}")
            authorship = AuthorshipFactory(work=work, author=author, position=position)
            authorship.institutions.add(institution)
            AuthorInstitution.objects.create(author=author, institution=institution)
    return institution, venue, topic


@pytest.fixture
def world():
    return _world(3)


def test_an_institution_page_lists_its_researchers_works_counts_and_source_links(client, world):
    institution, _, _ = world
    response = client.get(institution.get_absolute_url())
    text = _text(response)
    html = response.content.decode()
    assert "Université de Montréal" in text
    assert "6 researchers · 3 works on this site" in text
    assert "Researcher 000-0" in text and "Graph study 2" in text
    assert 'href="https://ror.org/0161xgx34"' in html
    assert 'href="https://openalex.org/I70931966"' in html


def test_a_venue_page_lists_the_works_from_it_and_their_authors(client, world):
    _, venue, _ = world
    other = WorkFactory(title="Elsewhere")
    AuthorshipFactory(work=other)
    text = _text(client.get(venue.get_absolute_url()))
    assert "6 researchers · 3 works on this site" in text
    assert "Elsewhere" not in text
    assert (
        'href="https://openalex.org/S1983995261"'
        in client.get(venue.get_absolute_url()).content.decode()
    )
    assert "ISSN-L 2167-8359" in text


def test_a_topic_page_links_its_source_and_parent(client, world):
    _, _, topic = world
    field = Topic.objects.create(key="openalex:fields/17", name="Computer Science", kind="field")
    topic.parent = field
    topic.save()
    html = client.get(topic.get_absolute_url()).content.decode()
    assert 'href="https://openalex.org/T10102"' in html
    assert f'href="{field.get_absolute_url()}"' in html
    assert "3 works on this site" in _text(client.get(topic.get_absolute_url()))
    category = Topic.objects.create(key="arxiv:cs.LG", name="Machine Learning", kind="arxiv")
    assert 'href="https://arxiv.org/list/cs.LG/recent"' in (
        client.get(category.get_absolute_url()).content.decode()
    )


def test_merged_works_and_authors_are_not_counted(client, world):
    institution, venue, _ = world
    survivor = venue.works.first()
    WorkFactory(title="Merged copy", venue=venue, merged_into=survivor)
    merged_author = AuthorFactory(
        display_name="Merged Person", merged_into=survivor.authors.first()
    )
    AuthorInstitution.objects.create(author=merged_author, institution=institution)
    assert "3 works" in _text(client.get(venue.get_absolute_url()))
    assert "Merged Person" not in _text(client.get(institution.get_absolute_url()))


def test_a_wrong_slug_redirects_keeping_the_page_and_an_unknown_id_is_404(client, world):
    institution, _, _ = world
    response = client.get(f"/institutions/{institution.pk}-wrong/?page=2")
    assert response.status_code == 301
    assert response["Location"] == institution.get_absolute_url() + "?page=2"
    assert client.get(f"/institutions/{institution.pk}/").status_code == 301
    assert client.get("/venues/999999-nothing/").status_code == 404


def test_hostile_names_are_text_and_hostile_homepages_are_not_linked(client):
    institution = InstitutionFactory(
        name="<script>alert(1)</script>Lab", homepage_url="javascript:alert(1)"
    )
    html = client.get(institution.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in html
    assert "javascript:" not in html


def test_both_lists_page_on_their_own(client):
    institution, _, _ = _world(30)
    first = _text(client.get(institution.get_absolute_url()))
    assert "Page 1 of 2" in first  # works, 20 a page
    assert "Page 1 of 5" in first  # researchers, 12 a page
    second = client.get(institution.get_absolute_url(), {"researchers": 5, "page": 2})
    text = _text(second)
    assert "Page 5 of 5" in text and "Page 2 of 2" in text


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("kind", ["institution", "venue", "topic"])
def test_each_page_costs_the_same_queries_at_any_size(client, kind):
    small = dict(zip(("institution", "venue", "topic"), _world(2), strict=True))[kind]
    few = _queries(client, small.get_absolute_url())
    large = dict(zip(("institution", "venue", "topic"), _world(40, "9"), strict=True))[kind]
    assert _queries(client, large.get_absolute_url()) == few
    assert few <= 12


def test_every_place_that_names_one_links_to_its_page(client, world):
    institution, venue, topic = world
    work = venue.works.first()
    author = work.authors.first()
    author.last_known_institution = institution
    author.save()
    work_html = client.get(work.get_absolute_url()).content.decode()
    for entity in (institution, venue, topic):
        assert f'href="{entity.get_absolute_url()}"' in work_html
    researcher_html = client.get(author.get_absolute_url()).content.decode()
    assert f'href="{institution.get_absolute_url()}"' in researcher_html
    assert f'href="{venue.get_absolute_url()}"' in researcher_html  # in the work list
    search_html = client.get("/search/", {"q": author.display_name}).content.decode()
    assert f'href="{institution.get_absolute_url()}"' in search_html

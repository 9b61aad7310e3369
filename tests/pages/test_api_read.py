"""Read API under /api/v1/: authors with metrics, their works, works, topics, institutions."""

from datetime import date

import pytest
from django.core.management import call_command

from catalogue.metrics import author_metrics_refresh
from catalogue.models import Funder, Grant, Source, Topic, WorkTopic
from config.sites import absolute_url
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


def add_work(author, position=0, **fields):
    work = WorkFactory(**fields)
    AuthorshipFactory(work=work, author=author, position=position)
    return work


@pytest.fixture
def researcher():
    author = AuthorFactory(display_name="Amar Phanishayee", orcid="0000-0002-1825-0097")
    topic = Topic.objects.create(key="arxiv:cs.DC", name="Distributed Computing", kind="arxiv")
    alpha = add_work(author, title="Alpha", publication_year=2018, cited_by_count=5)
    add_work(
        author,
        title="Beta",
        publication_year=2021,
        cited_by_count=90,
        code_url="https://github.com/example/beta",
    )
    gamma = add_work(
        author,
        title="Gamma",
        publication_year=2023,
        type="preprint",
        counts_by_year=[{"year": 2023, "cited_by_count": 4}],
    )
    add_work(author, title="Delta", publication_year=2020, cited_by_count=12)
    for work in (alpha, gamma):
        WorkTopic.objects.create(work=work, topic=topic, source=Source.ARXIV)
    author_metrics_refresh(author_ids=[author.pk])
    return author


def titles(response):
    return [w["title"] for w in response.json()["results"]]


def test_author_detail_has_metrics_with_unknowns_as_null(client, researcher):
    body = client.get(f"/api/v1/authors/{researcher.pk}/").json()
    assert body["display_name"] == "Amar Phanishayee"
    assert body["url"] == absolute_url(researcher.get_absolute_url())
    assert body["works"].endswith(f"/api/v1/authors/{researcher.pk}/works/")
    metrics = body["metrics"]
    assert metrics["works_count"] == 4
    assert metrics["citations"] == 107
    assert metrics["h_index"] == 3
    assert metrics["citations_by_year"] == {"2023": 4}
    assert metrics["topics_top"] == [
        {
            "id": Topic.objects.get().pk,
            "name": "Distributed Computing",
            "key": "arxiv:cs.DC",
            "works": 2,
        }
    ]
    assert metrics["novelty"] is None

    unknown = AuthorFactory()
    add_work(unknown, cited_by_count=None)
    author_metrics_refresh(author_ids=[unknown.pk])
    metrics = client.get(f"/api/v1/authors/{unknown.pk}/").json()["metrics"]
    assert (metrics["citations"], metrics["h_index"], metrics["i10_index"]) == (None, None, None)

    never = AuthorFactory()
    assert client.get(f"/api/v1/authors/{never.pk}/").json()["metrics"] is None


def test_author_list_is_paginated_and_filters_by_orcid(client, researcher):
    AuthorFactory.create_batch(3)
    body = client.get("/api/v1/authors/?page_size=2").json()
    assert body["count"] == 4 and len(body["results"]) == 2 and body["next"]
    assert body["results"][0]["works_count"] == 4
    found = client.get("/api/v1/authors/?orcid=0000-0002-1825-0097").json()["results"]
    assert [a["id"] for a in found] == [researcher.pk]


def test_merged_and_deleted_authors_are_not_listed(client):
    kept = AuthorFactory()
    AuthorFactory(merged_into=kept)
    AuthorFactory(is_deleted=True)
    assert [a["id"] for a in client.get("/api/v1/authors/").json()["results"]] == [kept.pk]


def test_author_works_sort_like_the_page(client, researcher):
    url = f"/api/v1/authors/{researcher.pk}/works/"
    assert titles(client.get(url)) == ["Gamma", "Beta", "Delta", "Alpha"]
    assert titles(client.get(url + "?sort=cited")) == ["Beta", "Delta", "Alpha", "Gamma"]
    assert titles(client.get(url + "?sort=title")) == ["Alpha", "Beta", "Delta", "Gamma"]


def test_author_works_filter_like_the_page(client, researcher):
    url = f"/api/v1/authors/{researcher.pk}/works/"
    assert titles(client.get(url + "?year_from=2020&year_to=2021")) == ["Beta", "Delta"]
    assert titles(client.get(url + "?type=preprint")) == ["Gamma"]
    assert titles(client.get(url + "?topic=arxiv:cs.DC")) == ["Gamma", "Alpha"]
    assert titles(client.get(url + "?has_code=true")) == ["Beta"]
    assert titles(client.get(url + "?has_code=false&sort=title")) == ["Alpha", "Delta", "Gamma"]
    body = client.get(url + "?page_size=1&sort=title").json()
    assert body["count"] == 4 and "sort=title" in body["next"]


def test_invalid_filters_answer_400_in_the_error_shape(client, researcher):
    url = f"/api/v1/authors/{researcher.pk}/works/"
    response = client.get(url + "?year_from=soon&year_to=1500&topic=nope&sort=random&type=x")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == 400 and error["code"] == "invalid"
    assert error["details"]["year_from"] == ["Enter a year such as 2019."]
    assert "1600" in error["details"]["year_to"][0]
    assert error["details"]["topic"] == ["No topic has this key; pick one from the list."]
    assert error["details"]["sort"] == ["Sort by newest, cited or title."]
    assert "type" in error["details"]

    response = client.get(url + "?year_from=2022&year_to=2019")
    assert response.json()["error"]["details"]["year_to"] == [
        "The end year (2019) is before the start year (2022)."
    ]


def test_works_of_an_unknown_author_answer_404(client):
    response = client.get("/api/v1/authors/999999/works/")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "No author has this id."


def test_work_list_filters_and_detail_has_topics_and_grants(client, researcher):
    assert titles(client.get("/api/v1/works/?sort=title&year_from=2021")) == ["Beta", "Gamma"]
    work = WorkFactory(
        title="Funded",
        venue=VenueFactory(name="Journal of Examples"),
        publication_date=date(2022, 3, 1),
        arxiv_id="2203.00001",
        abstract="An abstract.",
    )
    AuthorshipFactory(work=work, author=researcher)
    WorkTopic.objects.create(work=work, topic=Topic.objects.get(), source=Source.ARXIV)
    Grant.objects.create(work=work, funder=Funder.objects.create(name="NSF"), award_id="CNS-1")

    body = client.get(f"/api/v1/works/{work.pk}/").json()

    assert body["venue"] == "Journal of Examples"
    assert body["abstract"] == "An abstract."
    assert body["authorships"][0]["display_name"] == "Amar Phanishayee"
    assert body["topics"][0]["key"] == "arxiv:cs.DC"
    assert body["grants"] == [{"funder": "NSF", "award_id": "CNS-1"}]


@pytest.mark.parametrize(
    ("day", "precision", "year", "written"),
    [
        (date(2003, 5, 17), "day", 2003, ("2003-05-17", "day")),
        (date(2003, 5, 1), "month", 2003, ("2003-05", "month")),
        (date(2003, 1, 1), "year", 2003, ("2003", "year")),
        (None, "day", 2003, ("2003", "year")),  # a bare year
        (None, "day", None, (None, None)),  # no date at all
    ],
)
def test_a_works_date_is_given_to_the_sources_precision(client, day, precision, year, written):
    author = AuthorFactory()
    work = add_work(
        author, publication_date=day, publication_date_precision=precision, publication_year=year
    )
    listed = client.get(f"/api/v1/authors/{author.pk}/works/").json()["results"]
    for body in (client.get(f"/api/v1/works/{work.pk}/").json(), *listed):
        assert (body["publication_date"], body["publication_date_precision"]) == written
        assert body["publication_year"] == year


def test_the_schema_says_the_date_is_as_precise_as_its_source(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    work = schema["components"]["schemas"]["Work"]["properties"]
    assert work["publication_date"]["type"] == "string"
    assert "2003-05" in work["publication_date"]["description"]
    assert "format" not in work["publication_date"]  # not a whole date
    assert work["publication_date_precision"]["nullable"] is True


def test_novelty_says_what_it_compares_against(client):
    author, earlier = AuthorFactory(), AuthorFactory()
    for year in range(2000, 2010):  # ten earlier works to compare with
        add_work(earlier, title=f"Earlier study {year}", publication_year=year)
    add_work(author, title="New", publication_year=2015, prior_similarity=0.1)
    add_work(author, title="Close", publication_year=2016, prior_similarity=0.5)
    add_work(author, title="Early", publication_year=2005, prior_similarity=0.0)
    author_metrics_refresh(author_ids=[author.pk])

    metrics = client.get(f"/api/v1/authors/{author.pk}/").json()["metrics"]
    assert metrics["novelty"] == 50.0
    basis = metrics["novelty_basis"]
    assert {k: v for k, v in basis.items() if k != "description"} == {
        "new": 1,
        "judged": 2,
        "too_few_earlier": 1,
        "unknown": 0,
        "threshold": 0.35,
        "min_earlier_works": 10,
        "judged_after": "2008-12-31",
        "comparison_works": 13,
        "comparison_first_year": 2000,
        "comparison_last_year": 2016,
    }
    assert basis["description"].startswith("1 of 2 works judged resemble no work held here")


def test_work_list_queries_do_not_grow_with_works(client, django_assert_max_num_queries):
    for _ in range(30):
        work = WorkFactory()
        for position in range(3):
            AuthorshipFactory(work=work, position=position)
    with django_assert_max_num_queries(4):
        assert len(client.get("/api/v1/works/?page_size=30").json()["results"]) == 30


def test_topics_and_institutions(client, researcher):
    field = Topic.objects.create(key="openalex:fields/17", name="Computer Science", kind="field")
    Topic.objects.create(key="openalex:T1", name="Compilers", kind="topic", parent=field)
    InstitutionFactory(name="University of Toronto", country_code="CA")
    InstitutionFactory(name="Elsewhere", country_code="FR")

    topics = client.get("/api/v1/topics/?kind=topic").json()["results"]
    assert topics == [
        {
            "id": topics[0]["id"],
            "key": "openalex:T1",
            "name": "Compilers",
            "kind": "topic",
            "parent": field.pk,
            "parent_name": "Computer Science",
        }
    ]
    assert client.get("/api/v1/topics/?key=arxiv:cs.DC").json()["count"] == 1
    places = client.get("/api/v1/institutions/?country_code=CA").json()["results"]
    assert [p["name"] for p in places] == ["University of Toronto"]
    assert client.get(f"/api/v1/institutions/{places[0]['id']}/").status_code == 200
    assert client.get("/api/v1/topics/?kind=nonsense").status_code == 400


def test_schema_documents_the_read_endpoints(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    for path in (
        "/api/v1/authors/",
        "/api/v1/authors/{id}/",
        "/api/v1/authors/{author_pk}/works/",
        "/api/v1/works/",
        "/api/v1/works/{id}/",
        "/api/v1/topics/",
        "/api/v1/institutions/",
    ):
        assert path in paths
    names = {p["name"] for p in paths["/api/v1/authors/{author_pk}/works/"]["get"]["parameters"]}
    assert {"sort", "year_from", "year_to", "type", "topic", "has_code", "page"} <= names


def test_schema_validates_without_warnings():
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")

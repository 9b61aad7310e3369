"""The API work list: counts that do not scan, cursor paging, page numbers as before."""

from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pages.api import paging
from tests.factories import AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def works():
    """Works with ties and gaps in every sort key: same years, no date, no citations."""
    made = []
    for number in range(11):
        made.append(
            WorkFactory(
                title=f"Work {number % 4}",
                publication_year=None if number == 3 else 2018 + number % 3,
                publication_date=date(2018 + number % 3, 1 + number % 2, 1) if number % 5 else None,
                cited_by_count=None if number == 7 else number % 4,
            )
        )
    for work in made:
        AuthorshipFactory(work=work)
    return made


def walk(client, query: str) -> list[int]:
    seen, answer = [], client.get(f"/api/v1/works/?{query}cursor=*&page_size=3").json()
    while True:
        seen += [w["id"] for w in answer["results"]]
        if answer["next_cursor"] is None:
            return seen
        assert f"cursor={answer['next_cursor']}" in answer["next"]
        answer = client.get(f"/api/v1/works/?{query}cursor={answer['next_cursor']}&page_size=3")
        answer = answer.json()


def paged(client, query: str) -> list[int]:
    seen, page = [], 1
    while True:
        answer = client.get(f"/api/v1/works/?{query}page={page}&page_size=3").json()
        seen += [w["id"] for w in answer["results"]]
        if answer["next"] is None:
            return seen
        page += 1


@pytest.mark.parametrize("sort", ["", "sort=cited&", "sort=title&", "sort=newest&year_from=2019&"])
def test_a_cursor_walk_gives_every_work_once_in_the_page_order(client, works, sort):
    by_pages = paged(client, sort)
    assert walk(client, sort) == by_pages
    assert len(set(by_pages)) == len(by_pages)


def test_page_numbers_keep_their_answer_with_an_exact_small_count(client, works):
    body = client.get("/api/v1/works/?page=2&page_size=5").json()
    assert body["count"] == 11 and body["count_exact"] is True
    assert "page=3" in body["next"] and body["previous"]
    assert client.get("/api/v1/works/?page=4&page_size=5").status_code == 404


def test_past_the_exact_limit_the_count_is_estimated_and_the_pages_still_end(
    client, works, monkeypatch
):
    monkeypatch.setattr(paging, "EXACT_COUNT", 4)
    body = client.get("/api/v1/works/?page_size=5").json()
    assert body["count_exact"] is (connection.vendor != "postgresql")
    assert body["count"] >= 5
    last = client.get("/api/v1/works/?page=3&page_size=5").json()
    assert len(last["results"]) == 1 and last["next"] is None
    assert client.get("/api/v1/works/?page=9&page_size=5").status_code == 404


def counts(queries: CaptureQueriesContext) -> list[str]:
    """The queries that count a list's rows."""
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT COUNT(")]


def test_the_last_page_knows_the_count_without_counting(client, works):
    with CaptureQueriesContext(connection) as queries:
        body = client.get("/api/v1/works/?page=3&page_size=5").json()
    assert (body["count"], body["count_exact"], body["next"]) == (11, True, None)
    with CaptureQueriesContext(connection) as whole:
        body = client.get("/api/v1/works/?cursor=*&page_size=20").json()
    assert (body["count"], body["count_exact"], body["next_cursor"]) == (11, True, None)
    assert not counts(queries) and not counts(whole)
    assert not [q for q in queries.captured_queries if "EXPLAIN" in q["sql"]]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the planner's estimate")
def test_a_list_expected_to_be_long_is_not_counted(client, works, monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT", 1)
    monkeypatch.setattr(paging, "UNCOUNTED", 1)  # any list the planner expects a row in
    with CaptureQueriesContext(connection) as queries:
        body = client.get("/api/v1/works/?page_size=5").json()
    assert body["count_exact"] is False and body["count"] >= 1
    assert not counts(queries)


def test_a_list_expected_to_be_short_is_counted_exactly(client, works):
    body = client.get("/api/v1/works/?page_size=5&year_from=2019").json()
    expected = sum(1 for w in works if w.publication_year and w.publication_year >= 2019)
    assert (body["count"], body["count_exact"]) == (expected, True)


@pytest.mark.parametrize(
    "cursor",
    ["nonsense", "e30", "W10=", "x" * 3000, "eyJzIjpbIi1pZCJdLCJ2IjpbMV19"],
)
def test_a_bad_cursor_answers_400_in_the_error_shape(client, works, cursor):
    response = client.get(f"/api/v1/works/?cursor={cursor}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and "cursor" in error["details"]


def test_a_cursor_of_another_sort_or_with_a_page_number_is_refused(client, works):
    cursor = client.get("/api/v1/works/?cursor=*&page_size=2").json()["next_cursor"]
    assert client.get(f"/api/v1/works/?sort=title&cursor={cursor}").status_code == 400
    assert client.get(f"/api/v1/works/?cursor={cursor}&page=2").status_code == 400
    assert client.get(f"/api/v1/works/?cursor={cursor}").status_code == 200


def test_an_authors_works_page_by_cursor_too(client, works):
    author = works[0].authorships.get().author
    for work in works[1:4]:
        AuthorshipFactory(work=work, author=author, position=1)
    body = client.get(f"/api/v1/authors/{author.pk}/works/?cursor=*&page_size=3").json()
    assert len(body["results"]) == 3 and body["next_cursor"]


def test_list_queries_do_not_grow_with_works_or_depth(client, django_assert_max_num_queries):
    for _ in range(40):
        work = WorkFactory()
        for position in range(3):
            AuthorshipFactory(work=work, position=position)
    # the count (planned, then counted), the works, their first names
    with django_assert_max_num_queries(4):
        first = client.get("/api/v1/works/?cursor=*&page_size=20").json()
    # and, where the list ends within the page, the works without a year (last in the order)
    with django_assert_max_num_queries(5):
        second = client.get(f"/api/v1/works/?cursor={first['next_cursor']}&page_size=20").json()
    with django_assert_max_num_queries(4):
        client.get("/api/v1/works/?page=2&page_size=20")
    assert len(first["results"]) == len(second["results"]) == 20
    assert not {w["id"] for w in first["results"]} & {w["id"] for w in second["results"]}


def test_the_schema_documents_the_cursor(client):
    schema = client.get("/api/schema/?format=json").json()
    names = {p["name"] for p in schema["paths"]["/api/v1/works/"]["get"]["parameters"]}
    assert {"cursor", "page", "page_size"} <= names

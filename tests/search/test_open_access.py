"""Open access: the status and best open copy on the work page, a filter on every work list."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import Work
from search.works import WorkFilters, search_works
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def works():
    """One work of each kind of access, all by one researcher, all about 'graphs'."""
    author = AuthorFactory(display_name="Ada Lovelace")
    made = {
        "gold": WorkFactory(
            title="Gold graphs",
            is_open_access=True,
            oa_status="gold",
            oa_url="https://journal.example/gold.pdf",
        ),
        "green": WorkFactory(
            title="Green graphs",
            is_open_access=True,
            oa_status="green",
            oa_url="https://repository.example/green",
        ),
        "closed": WorkFactory(title="Closed graphs", is_open_access=False, oa_status="closed"),
        "unknown": WorkFactory(title="Unknown graphs"),
    }
    for work in made.values():
        AuthorshipFactory(work=work, author=author, position=0)
    return author, made


def titles_in(html: str) -> set[str]:
    return set(re.findall(r"(Gold|Green|Closed|Unknown) graphs", html))


def test_the_work_page_shows_the_status_and_links_the_best_open_copy(client, works):
    _, made = works
    html = client.get(made["green"].get_absolute_url()).content.decode()
    assert 'Open access <span class="oa-status">(green)</span>' in html
    assert (
        '<a href="https://repository.example/green" rel="noopener nofollow">Best open copy</a>'
        in html
    )
    closed = client.get(made["closed"].get_absolute_url()).content.decode()
    assert "Not open access" in closed
    assert "Best open copy" not in closed


def test_a_copy_that_is_not_a_web_address_is_not_linked(client):
    work = WorkFactory(is_open_access=True, oa_status="gold", oa_url="javascript:alert(1)")
    html = client.get(work.get_absolute_url()).content.decode()
    assert "Best open copy" not in html
    assert "javascript:" not in html


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("open", {"Gold", "Green"}),
        ("gold", {"Gold"}),
        ("green", {"Green"}),
        ("closed", {"Closed"}),
        ("", {"Gold", "Green", "Closed", "Unknown"}),
    ],
)
def test_the_researcher_list_filters_by_access(client, works, value, expected):
    author, _ = works
    response = client.get(author.get_absolute_url(), {"oa": value})
    assert response.status_code == 200
    html = response.content.decode()
    works_part = html[html.index('id="works"') :]
    assert titles_in(works_part) == expected


def test_an_unknown_access_value_is_reported_and_the_list_still_shows(client, works):
    author, _ = works
    html = client.get(author.get_absolute_url(), {"oa": "platinum"}).content.decode()
    assert "Unknown open-access choice" in html
    assert titles_in(html[html.index('id="works"') :]) == {"Gold", "Green", "Closed", "Unknown"}


@pytest.mark.parametrize(("value", "expected"), [("open", 2), ("gold", 1), ("closed", 1)])
def test_the_api_filters_a_researchers_works_by_access(client, works, value, expected):
    author, made = works
    body = client.get(f"/api/v1/authors/{author.pk}/works/", {"oa": value}).json()
    assert len(body["results"]) == expected
    assert {w["oa_status"] for w in body["results"]} <= {value, "gold", "green", "closed"}
    assert client.get(f"/api/v1/works/{made['gold'].pk}/").json()["oa_url"] == (
        "https://journal.example/gold.pdf"
    )


def test_the_api_refuses_an_unknown_access_value(client, works):
    author, _ = works
    response = client.get(f"/api/v1/authors/{author.pk}/works/", {"oa": "platinum"})
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("value", "expected"),
    [("open", {"Gold", "Green"}), ("green", {"Green"}), ("closed", {"Closed"})],
)
def test_search_filters_by_access(client, works, value, expected):
    found = search_works("graphs", WorkFilters(oa=value))
    assert {w.title.split()[0] for w in found[0:20]} == expected
    html = client.get("/search/", {"q": "graphs", "oa": value}).content.decode()
    results = html[html.index('class="search-results"') :]
    assert titles_in(results) == expected
    assert f'<option value="{value}" selected>' in html


def _queries(client, url, params) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, params).status_code == 200
    return len(captured)


def test_filtered_lists_cost_the_same_queries_at_any_size(client, works):
    author, _ = works
    few = _queries(client, author.get_absolute_url(), {"oa": "gold"})
    few_search = _queries(client, "/search/", {"q": "graphs", "oa": "gold"})
    for _ in range(25):
        work = WorkFactory(title="More graphs", is_open_access=True, oa_status="gold")
        AuthorshipFactory(work=work, author=AuthorFactory(), position=0)
        AuthorshipFactory(work=work, author=author, position=1)
    assert _queries(client, author.get_absolute_url(), {"oa": "gold"}) <= few + 2
    assert _queries(client, "/search/", {"q": "graphs", "oa": "gold"}) <= few_search + 2
    assert Work.objects.filter(oa_status="gold").count() == 26


def test_stored_openalex_records_fill_blank_access_and_biblio_once(real_fixtures):
    from django.core.management import call_command

    call_command(
        "import_file",
        str(real_fixtures / "openalex" / "works__W2741809807__2025-06.json"),
        verbosity=0,
    )
    work = Work.objects.get(openalex_id="W2741809807")
    assert (work.oa_status, work.volume, work.first_page) == ("gold", "6", "e4375")
    # As stored before these fields were read; staff had set the volume meanwhile.
    Work.objects.filter(pk=work.pk).update(
        oa_status="", oa_url="", volume="7 (corrected)", first_page="", last_page=""
    )
    call_command("backfill_open_access", verbosity=0)
    work.refresh_from_db()
    assert work.oa_status == "gold"
    assert work.oa_url == "https://peerj.com/articles/4375.pdf"
    assert (work.volume, work.issue, work.first_page, work.last_page) == (
        "7 (corrected)",
        "",
        "e4375",
        "e4375",
    )
    before = work.updated_at
    call_command("backfill_open_access", verbosity=0)
    work.refresh_from_db()
    assert work.updated_at == before

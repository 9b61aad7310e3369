"""What the search page says when no work matches: the truth about what was found, and
what to try next; a reversed year range is reported, not half applied."""

import re

import pytest

from catalogue.metrics import author_metrics_refresh
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


def works_section(html: str) -> str:
    found = re.search(r'<section aria-labelledby="found-works">.*?</section>', html, re.S)
    assert found, "no Works section"
    return found.group(0)


def test_a_name_without_matching_text_explains_the_works_listed(client):
    author = AuthorFactory(display_name="Gennady Pekhimenko")
    for year in (2020, 2021):
        AuthorshipFactory(author=author, work__title=f"Memory systems {year}")
    html = client.get("/search/", {"q": "Pekhimenko"}).content.decode()
    assert "Works by Gennady Pekhimenko" in html and "Memory systems 2021" in html
    works = works_section(html)
    assert "Works that mention “Pekhimenko”" in works
    assert "No title or abstract contains “Pekhimenko”" in works
    assert "because the search names Gennady Pekhimenko" in works
    assert "0 works" not in works and "best matches first" not in works


def test_nothing_found_suggests_what_to_try(client):
    WorkFactory(title="Gradient compression")
    works = works_section(client.get("/search/", {"q": "zebra quokka"}).content.decode())
    assert "Nothing matches “zebra quokka”" in works
    assert "best matches first" not in works
    assert "Use fewer words" in works
    assert "Paste an identifier" in works


def test_filters_that_leave_nothing_offer_to_search_without_them(client):
    WorkFactory(title="Gradient compression", publication_year=2015)
    works = works_section(
        client.get("/search/", {"q": "gradient", "year_from": "2020"}).content.decode()
    )
    assert "with these filters" in works and "Search again without the filters" in works
    assert "Use fewer words" not in works  # one word already


def test_a_reversed_year_range_is_reported_and_applies_neither_end(client):
    WorkFactory(title="Robust old filters", publication_year=2015)
    WorkFactory(title="Robust new filters", publication_year=2024)
    html = client.get("/search/", {"q": "robust", "year_from": "2020", "year_to": "2010"})
    works = works_section(html.content.decode())
    assert 'role="alert"' in works
    assert "The years are reversed (from 2020 to 2010), so no year filter was applied" in works
    assert "Robust old filters" in works and "Robust new filters" in works  # not 2020 onwards
    assert "2 works, best matches first" in works  # no filter is in force


def test_a_researcher_active_for_one_year_shows_that_year_once(client):
    one = AuthorshipFactory(
        author__display_name="Single Year", work__title="Only paper", work__publication_year=2023
    ).author
    many = AuthorshipFactory(
        author__display_name="Single Span", work__title="First paper", work__publication_year=2019
    ).author
    AuthorshipFactory(author=many, work__title="Later paper", work__publication_year=2022)
    author_metrics_refresh(author_ids=[one.pk, many.pk])
    html = client.get("/search/", {"q": "single"}).content.decode()
    assert "2023–2023" not in html
    assert re.search(r"1 work · 2023\s*</", html)
    assert "2019–2022" in html

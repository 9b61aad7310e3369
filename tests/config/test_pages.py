"""The home page, the error pages and the basic record pages."""

import pytest
from django.test import Client

from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


def test_empty_home_explains_how_to_import(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Nothing has been imported yet" in html
    assert "manage.py demo" in html
    assert 'role="search"' in html and 'action="/search/"' in html
    assert "htmx" not in html  # loaded only on pages that use it


def test_home_lists_recent_researchers_and_works(client, django_assert_max_num_queries):
    lab = InstitutionFactory(name="Example Institute of Technology")
    for i in range(12):
        AuthorshipFactory(
            work__title=f"Paper number {i}",
            author__display_name=f"Researcher {i}",
            author__last_known_institution=lab if i % 2 else None,
        )
    client.get("/")  # the works' list entries are drawn and kept
    with django_assert_max_num_queries(4):
        response = client.get("/")
    html = response.content.decode()
    assert "Recently imported researchers" in html
    assert "Researcher 11" in html and "Paper number 11" in html
    assert "Researcher 0" not in html  # only the most recent are listed
    assert "Example Institute of Technology" in html
    assert "Affiliation not imported" in html


def test_unknown_page_is_a_styled_404(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "We have no page at this address" in html
    assert "/static/css/site.css" in html


def test_server_error_page_is_styled_and_api_errors_are_json(rf):
    from config.views import server_error

    page = server_error(rf.get("/works/1/"))
    assert page.status_code == 500
    assert b"Something went wrong on our side" in page.content
    api = server_error(rf.get("/api/v1/works/"))
    assert api.status_code == 500
    assert api["Content-Type"] == "application/json"


def test_unhandled_api_exception_answers_the_error_shape(monkeypatch):
    from pages.api import works as api

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(api.WorkViewSet, "list", explode)
    client = Client(raise_request_exception=False)
    response = client.get("/api/v1/works/")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"


def test_work_and_researcher_pages_show_the_record(client):
    author = AuthorFactory(display_name="Grace Example", orcid="0000-0002-1825-0097")
    work = WorkFactory(title="On examples", doi="10.1000/ex", abstract="We study examples.")
    AuthorshipFactory(work=work, author=author)
    page = client.get(author.get_absolute_url())
    assert page.status_code == 200
    assert "Grace Example" in page.content.decode()
    assert "On examples" in page.content.decode()
    work_page = client.get(work.get_absolute_url()).content.decode()
    assert "We study examples." in work_page
    assert "https://doi.org/10.1000/ex" in work_page


def test_wrong_slug_redirects_to_the_canonical_address(client):
    work = WorkFactory(title="Canonical title")
    response = client.get(f"/works/{work.pk}-wrong/")
    assert response.status_code == 301
    assert response["Location"] == work.get_absolute_url()


def test_search_finds_researchers_and_works(client):
    AuthorshipFactory(author__display_name="Katherine Johnson", work__title="Orbital mechanics")
    html = client.get("/search/", {"q": "orbital"}).content.decode()
    assert "Orbital mechanics" in html
    html = client.get("/search/", {"q": "katherine"}).content.decode()
    assert "Katherine Johnson" in html


def test_search_finds_a_name_typed_without_its_accents(client):
    AuthorshipFactory(author__display_name="Vincent Larivière")
    assert "Vincent Larivière" in client.get("/search/", {"q": "lariviere"}).content.decode()

"""What crawlers are told: robots.txt names the sitemap, and search results are not indexed."""

import pytest

pytestmark = pytest.mark.django_db


def test_robots_txt_names_the_sitemap_on_the_public_address(client, settings):
    settings.SITE_URL = "https://scholar.example"
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert "Sitemap: https://scholar.example/sitemap.xml" in lines
    for private in ("/search/", "/admin/", "/accounts/", "/api/"):
        assert f"Disallow: {private}" in lines
    # The records themselves stay open to crawlers.
    assert not any(line in ("Disallow: /", "Disallow: /researchers/") for line in lines)


def test_the_sitemap_robots_txt_names_answers(client, settings):
    settings.SITE_URL = "http://testserver"
    assert client.get("/sitemap.xml").status_code == 200


@pytest.mark.parametrize("query", ["", "?q=graphs", "?q=graphs&page=2&show=researchers"])
def test_search_pages_are_not_indexed(client, query):
    response = client.get(f"/search/{query}")
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex, follow"
    assert '<meta name="robots" content="noindex, follow">' in response.content.decode()


def test_a_search_page_kept_for_the_next_visitor_is_still_not_indexed(client):
    client.get("/search/?q=kept")
    again = client.get("/search/?q=kept")
    assert again["X-Robots-Tag"] == "noindex, follow"


def test_search_exports_are_not_indexed(client):
    response = client.get("/search/export.bib?q=graphs")
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex, follow"


def test_record_pages_stay_indexable(client, author):
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    assert "X-Robots-Tag" not in response
    assert 'name="robots"' not in response.content.decode()

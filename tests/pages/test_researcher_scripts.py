"""The researcher page runs no script while it opens: every script is deferred, and htmx
itself is loaded only once a part of the page needs it (static/js/htmx-on-demand.js)."""

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.factories import AuthorshipFactory

pytestmark = pytest.mark.django_db


class _Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.found.append(dict(attrs))


def scripts_of(response) -> list[dict]:
    parser = _Scripts()
    parser.feed(response.content.decode())
    return parser.found


@pytest.fixture
def researcher_page(client):
    author = AuthorshipFactory().author
    return client.get(author.get_absolute_url())


def test_every_script_of_the_researcher_page_waits_for_the_page(researcher_page):
    loaded = [s for s in scripts_of(researcher_page) if "src" in s]
    assert loaded
    assert all("defer" in s or "async" in s or s.get("type") == "module" for s in loaded), loaded
    inline = [s for s in scripts_of(researcher_page) if "src" not in s]
    assert all(s.get("type") == "application/ld+json" for s in inline), inline  # data, not code


def test_htmx_is_not_loaded_while_the_researcher_page_opens(researcher_page):
    sources = [s.get("src", "") for s in scripts_of(researcher_page)]
    assert not [src for src in sources if "htmx-2" in src]
    [loader] = [s for s in scripts_of(researcher_page) if "htmx-on-demand" in s.get("src", "")]
    htmx, errors = loader["data-scripts"].split()
    assert "django_htmx/htmx-2" in htmx and "htmx-errors" in errors  # htmx first


def test_the_graph_explorer_still_starts_htmx_with_the_page(client):
    author = AuthorshipFactory().author
    response = client.get(reverse("graph:explorer", args=[author.pk]))
    assert any("htmx-2" in s.get("src", "") and "defer" in s for s in scripts_of(response))

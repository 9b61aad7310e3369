"""Kept pages count only the query parameters their page reads; any other keeps nothing."""

import pytest

from catalogue.filters import WorkFilter
from pages import cache as pagecache
from search.works import SearchForm
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]

HIT = pagecache.HIT_HEADER


class Recording:
    """The cache, noting the keys of the pages it is asked to keep."""

    def __init__(self, cache):
        self.cache = cache
        self.kept: list[str] = []

    def set(self, key, *args, **kwargs):
        if key.startswith(("page:", "shared:")):
            self.kept.append(key)
        return self.cache.set(key, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.cache, name)


@pytest.fixture
def kept(monkeypatch):
    recording = Recording(pagecache.cache)
    monkeypatch.setattr(pagecache, "cache", recording)
    return recording.kept


@pytest.fixture
def work():
    work = WorkFactory(title="Tidal locking of moons", cited_by_count=3)
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Edith Clarke"))
    return work


@pytest.fixture
def researcher(work):
    return work.authorships.get().author


def get(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response


@pytest.mark.parametrize("page", ["work", "researcher"])
def test_unknown_parameters_keep_nothing(client, kept, work, researcher, page):
    url = (work if page == "work" else researcher).get_absolute_url()
    for number in range(5):
        response = get(client, f"{url}?a={number}")
        assert HIT not in response
    assert HIT not in get(client, f"{url}?a=1")  # answered fresh again
    assert kept == []
    get(client, url)
    assert len(kept) >= 1
    assert get(client, url)[HIT] == "hit"


def test_a_parameter_given_twice_or_out_of_shape_keeps_nothing(client, kept, researcher):
    url = researcher.get_absolute_url()
    get(client, f"{url}?page=1&page=2")
    get(client, f"{url}?page=x" + "1" * 10)
    get(client, f"{url}?sort=" + "a" * 500)
    assert kept == []


def test_the_page_s_own_parameters_share_one_entry_in_any_order(client, kept, researcher):
    url = researcher.get_absolute_url()
    first = get(client, f"{url}?sort=title&type=article")
    assert HIT not in first
    assert len(kept) == 2  # the anonymous page and the shared page
    again = get(client, f"{url}?type=article&sort=title")
    assert again[HIT] == "hit"
    assert len(kept) == 2


def test_a_work_page_keeps_its_pages_of_references(client, kept, work):
    url = work.get_absolute_url()
    get(client, f"{url}?references=2")
    assert get(client, f"{url}?references=2")[HIT] == "hit"
    get(client, f"{url}?references=2&utm_source=mail")
    assert len(kept) == 1


def test_the_search_page_is_kept_only_for_its_own_parameters(client, kept, work):
    get(client, "/search/?q=tidal&junk=1")
    assert kept == []
    get(client, "/search/?q=tidal&type=article")
    assert len(kept) == 1


def test_the_parameters_are_those_the_pages_read():
    work_filters = set(WorkFilter.base_filters)
    assert set(pagecache.PAGE_PARAMETERS["author"]) == work_filters | {"page"}
    search = set(SearchForm.base_fields)
    assert set(pagecache.PAGE_PARAMETERS["search"]) == search | {"page"}

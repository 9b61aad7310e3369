"""One search page serves every visitor until any record changes."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pages import cache as pagecache
from tests.factories import AuthorshipFactory, UserFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("page_cache", "statistics_of_this_test"),
]


@pytest.fixture
def work():
    return AuthorshipFactory(
        author__display_name="Tensor Person", work__title="Tensor networks at scale"
    ).work


def search(client, q="tensor") -> str:
    response = client.get("/search/", {"q": q})
    assert response.status_code == 200
    return response.content.decode()


def test_a_repeated_search_reads_nothing_until_a_record_changes(
    client, work, django_assert_num_queries
):
    first = search(client)
    assert "Tensor networks at scale" in first
    with django_assert_num_queries(0):
        assert search(client) == first
    work.title = "Tensor networks, revised"
    work.save()
    assert "Tensor networks, revised" in search(client)


def test_a_new_work_and_a_renamed_author_show_at_the_next_search(client, work):
    search(client)
    AuthorshipFactory(author=work.authorships.get().author, work__title="Tensor sketches")
    assert "Tensor sketches" in search(client)
    author = work.authorships.get().author
    author.display_name = "Tensor Q. Person"
    author.save()
    assert "Tensor Q. Person" in search(client)


def test_renewing_any_record_renews_the_search_pages(
    client, work, django_assert_num_queries, django_assert_max_num_queries
):
    search(client)
    pagecache.works_bump([work.pk + 1000])  # a record this page does not show
    with django_assert_max_num_queries(10) as renewed:
        search(client)
    assert len(renewed.captured_queries) > 0
    with django_assert_num_queries(0):
        search(client)


def test_each_visitor_gets_their_own_account_menu(client, work):
    member = Client()
    member.force_login(UserFactory(username="reader"))
    anonymous = search(client)
    signed_in = search(member)
    assert "Sign in" in anonymous and "Sign out" not in anonymous
    assert "Sign out" in signed_in and "Sign in</a>" not in signed_in
    assert 'name="csrfmiddlewaretoken"' in signed_in
    assert 'name="csrfmiddlewaretoken"' not in search(client)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranked search needs PostgreSQL")
def test_a_rebuilt_page_takes_its_entries_from_the_cache_without_reading_the_works(client, work):
    coauthor = AuthorshipFactory(work=work, author__display_name="Second Author", position=1)
    search(client, "networks")  # a word of the title, naming no one
    pagecache.works_bump([work.pk + 1000])  # the page is rebuilt, its entries are unchanged
    with CaptureQueriesContext(connection) as rebuilt:
        assert "Second Author" in search(client, "networks")
    assert not any('"publications_work"."abstract"' in q["sql"] for q in rebuilt)
    coauthor.author.display_name = "Second A. Author"
    coauthor.author.save()
    assert "Second A. Author" in search(client, "networks")

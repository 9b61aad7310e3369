"""Anonymous work pages come from the cache until something they show changes."""

import pytest
from django.test import Client

from catalogue.signals import authors_changed
from pages import cache as pagecache
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]

HIT = pagecache.HIT_HEADER


@pytest.fixture
def work():
    work = WorkFactory(title="Tidal locking of moons", cited_by_count=3)
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Edith Clarke"))
    return work


def visit(client, work):
    response = client.get(work.get_absolute_url())
    assert response.status_code == 200
    return response


def test_a_second_anonymous_visit_is_served_without_sql(client, work, django_assert_num_queries):
    first = visit(client, work)
    assert HIT not in first
    with django_assert_num_queries(0):
        second = visit(client, work)
    assert second[HIT] == "hit"
    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]


def test_an_edit_of_the_work_shows_at_the_next_visit(client, work):
    visit(client, work)
    work.title = "Tidal locking of moons, revised"
    work.save()
    response = visit(client, work)
    assert HIT not in response
    assert "Tidal locking of moons, revised" in response.content.decode()


def test_a_renamed_author_shows_on_the_works_page(client, work):
    visit(client, work)
    author = work.authorships.get().author
    author.display_name = "Edith M. Clarke"
    author.save()
    assert "Edith M. Clarke" in visit(client, work).content.decode()


def test_an_import_that_changed_the_work_renews_its_page(client, work):
    """Imports write in bulk, without model signals; their batch signal renews the page."""
    visit(client, work)
    type(work).objects.filter(pk=work.pk).update(cited_by_count=41)
    assert HIT in visit(client, work)  # nothing said the page changed
    authors_changed.send(sender=None, author_ids=[], work_ids=[work.pk])
    response = visit(client, work)
    assert HIT not in response
    assert ">41<" in response.content.decode()


def test_a_change_of_an_author_alone_renews_the_page(client, work):
    visit(client, work)
    pagecache.authors_bump([work.authorships.get().author_id])
    assert HIT not in visit(client, work)


def test_signed_in_visitors_never_get_the_anonymous_copy(client, work, django_user_model):
    visit(client, work)
    assert HIT in visit(client, work)
    member = Client()
    member.force_login(django_user_model.objects.create_user("member", password="x"))
    for _ in range(2):
        assert HIT not in visit(member, work)


def test_a_visitor_with_any_cookie_gets_a_fresh_page(client, work):
    visit(client, work)
    with_cookie = Client()
    with_cookie.cookies["messages"] = "something"
    assert HIT not in visit(with_cookie, work)


def test_a_page_that_used_the_csrf_token_is_not_kept(rf, work):
    from django.middleware.csrf import get_token
    from django.shortcuts import render

    @pagecache.anonymous_page("work")
    def view(request, pk):
        get_token(request)
        return render(request, "base.html")

    view(rf.get("/w"), work.pk)
    assert HIT not in view(rf.get("/w"), work.pk)


def test_only_plain_answers_are_kept(rf, work):
    from django.http import HttpResponse

    @pagecache.anonymous_page("work")
    def view(request, pk):
        response = HttpResponse("hello")
        response.set_cookie("seen", "1")
        return response

    view(rf.get("/w"), work.pk)
    assert HIT not in view(rf.get("/w"), work.pk)

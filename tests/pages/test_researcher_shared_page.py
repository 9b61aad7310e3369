"""Signed-in visitors share one cached researcher page; their own panels are drawn for each."""

import re

import pytest
from django.db import connection
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext

from pages import cache as pagecache
from pages import slots
from profiles.claims.ownership import work_pin
from profiles.models import Follow, Profile
from tests.people import signed_in, work_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]


@pytest.fixture
def work(author):
    return work_of(author, title="Compiling arithmetic expressions")


def html(client, author) -> str:
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def test_members_share_the_page_and_each_sees_only_their_own_panels(
    author, work, owner, follower, stranger
):
    seen = {}
    for user in [owner, follower, stranger, owner, follower]:
        seen[user.username] = html(signed_in(user), author)
        assert "Compiling arithmetic expressions" in seen[user.username]
        assert "Sign out" in seen[user.username]
    assert "This is your record" in seen["owner"] and "follows your record" in seen["owner"]
    assert "Unfollow" in seen["follower"] and "This is your record" not in seen["follower"]
    assert "Follow researcher" in seen["stranger"]
    assert "Unfollow" not in seen["stranger"] and "This is your record" not in seen["stranger"]

    visitor = Client()
    visitor.cookies["csrftoken"] = "x" * 32  # a cookie: not served the anonymous copy
    anonymous = html(visitor, author)
    assert "Sign in" in anonymous and "Sign out" not in anonymous
    assert "Log in to claim" not in anonymous  # the record is claimed
    assert "Unfollow" not in anonymous and "This is your record" not in anonymous


def test_a_members_visit_after_anothers_reads_no_works(author, work, follower, stranger):
    html(signed_in(follower), author)
    member = signed_in(stranger)
    with CaptureQueriesContext(connection) as second:
        page = html(member, author)
    assert "Compiling arithmetic expressions" in page
    sql = " ".join(q["sql"] for q in second.captured_queries)
    assert "publications_work" not in sql and "trust_" not in sql
    # Session, user, author, follows, claims, inbox count
    assert len(second.captured_queries) <= 6


def test_the_forms_carry_the_members_own_csrf_token(author, work, follower, stranger):
    html(signed_in(follower), author)  # the shared page is kept
    member = Client(enforce_csrf_checks=True)
    member.force_login(stranger)
    page = html(member, author)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = member.post(f"/researchers/{author.pk}/follow/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Follow.objects.filter(user=stranger, author=author).exists()
    assert "Unfollow" in html(member, author)


def test_messages_show_on_the_shared_page(author, work, owner):
    member = signed_in(owner)
    html(member, author)
    response = member.post(f"/researchers/{author.pk}/follow/", follow=True)
    assert response.status_code == 200
    assert 'class="flash flash-error"' in response.content.decode()
    assert 'class="flash' not in html(member, author)  # shown once


def test_a_pinned_work_leads_the_page_at_the_next_visit(author, work, owner, stranger):
    other = work_of(author, title="A later work")
    visitor, member = Client(), signed_in(stranger)
    html(visitor, author), html(member, author)
    assert pagecache.HIT_HEADER in visitor.get(author.get_absolute_url())
    work_pin(profile=Profile.objects.get(user=owner), work=other, actor=owner)
    for page in (html(visitor, author), html(member, author)):
        assert page.index("is-pinned") < page.index("A later work") < page.index("Compiling")


def test_a_shared_page_that_used_the_csrf_token_is_not_kept():
    request = RequestFactory().get("/researchers/1/")
    built = []

    def build(visitor, stand_ins):
        built.append(1)
        token = get_token(visitor) if len(built) < 3 else ""
        return f"page {token} {stand_ins['account']}", {}

    for _ in range(4):
        body, nonce, _ = pagecache.shared_page("author", 1, request, build)
        assert slots.fill(body, nonce, {"account": "NAV"}).endswith("NAV")
    assert len(built) == 3  # kept only once it no longer asked for the token

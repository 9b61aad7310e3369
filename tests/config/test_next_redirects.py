"""Forms that send their sender back to ``next`` follow only paths on this site."""

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from config.redirects import safe_next_url
from profiles.models import Block
from tests.factories import AuthorFactory, UserFactory
from tests.people import signed_in

pytestmark = pytest.mark.django_db

UNSAFE_TARGETS = [
    "abc",
    "profiles:inbox",
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "javascript:alert(1)",
    " //evil.example",
    "/\t/evil.example",
    "http:/evil.example",
    "",
]


@pytest.mark.parametrize("target", UNSAFE_TARGETS)
def test_unsafe_next_falls_back_to_the_default_page(target):
    request = RequestFactory().post("/", {"next": target})
    assert safe_next_url(request, "/fallback/") == "/fallback/"


@pytest.mark.parametrize("target", ["/", "/researchers/1-ada/?page=2#works", "/search?q=a%20b"])
def test_a_path_on_this_site_is_followed(target):
    request = RequestFactory().post("/", {"next": target})
    assert safe_next_url(request, "/fallback/") == target


@pytest.mark.parametrize("target", UNSAFE_TARGETS)
@pytest.mark.parametrize("view", ["profiles:follow", "profiles:unfollow"])
def test_follow_and_unfollow_never_fail_on_next(view, target, stranger):
    author = AuthorFactory()
    response = signed_in(stranger).post(reverse(view, args=[author.pk]), {"next": target})
    assert response.status_code == 302
    assert response["Location"] == author.get_absolute_url()


@pytest.mark.parametrize("view", ["profiles:follow", "profiles:unfollow"])
def test_follow_comes_back_to_a_safe_next(view, stranger):
    author = AuthorFactory()
    response = signed_in(stranger).post(
        reverse(view, args=[author.pk]), {"next": "/search?q=hopper"}
    )
    assert response["Location"] == "/search?q=hopper"


def test_a_visitor_is_sent_to_sign_in_with_a_safe_next_only():
    author = AuthorFactory()
    response = Client().post(reverse("profiles:follow", args=[author.pk]), {"next": "abc"})
    assert response.status_code == 302
    assert "next=abc" not in response["Location"]
    assert response["Location"].startswith(reverse("account_login"))


@pytest.mark.parametrize("target", UNSAFE_TARGETS)
def test_unblock_never_fails_on_next(target):
    blocker, blocked = UserFactory(), UserFactory()
    block = Block.objects.create(blocker=blocker, blocked=blocked)
    response = signed_in(blocker).post(
        reverse("profiles:unblock", args=[block.pk]), {"next": target}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("profiles:inbox")
    assert not Block.objects.filter(pk=block.pk).exists()


def test_next_in_the_query_string_is_checked_the_same_way():
    blocker, blocked = UserFactory(), UserFactory()
    block = Block.objects.create(blocker=blocker, blocked=blocked)
    url = reverse("profiles:unblock", args=[block.pk]) + "?next=abc"
    assert signed_in(blocker).post(url)["Location"] == reverse("profiles:inbox")

"""Follows under /api/v1/follows/: list, follow, unfollow; session or token; error shape."""

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from profiles.following import services as following
from profiles.models import Follow
from tests.factories import AuthorFactory

pytestmark = pytest.mark.django_db

FOLLOWS = "/api/v1/follows/"


def api(user=None, *, token=False, csrf=False) -> APIClient:
    client = APIClient(enforce_csrf_checks=csrf)
    if user is not None and token:
        key = Token.objects.create(user=user).key
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    elif user is not None:
        client.force_login(user)
    return client


def test_the_signed_in_user_lists_only_their_own_follows(author, follower, stranger):
    other = AuthorFactory(display_name="Emmy Noether")
    following.follow_create(user=stranger, author=other)
    body = api(stranger).get(FOLLOWS).json()
    assert body["count"] == 1
    [row] = body["results"]
    assert row["author"] == other.pk
    assert row["author_name"] == "Emmy Noether"
    assert row["author_url"].endswith(other.get_absolute_url())
    assert row["followers_count"] == 1
    assert set(row) == {
        "author",
        "author_name",
        "author_url",
        "followers_count",
        "followed_at",
        "citation_alerts_since",
    }
    assert row["citation_alerts_since"] is None  # alerts on new citations are asked for apart


def test_follow_answers_201_then_200_and_unfollow_204_both_times(author, stranger):
    client = api(stranger, token=True)
    first = client.post(FOLLOWS, {"author": author.pk}, format="json")
    assert first.status_code == 201
    assert first.json()["followers_count"] == 1
    again = client.post(FOLLOWS, {"author": author.pk}, format="json")
    assert again.status_code == 200
    assert Follow.objects.filter(user=stranger).count() == 1
    assert client.get(f"{FOLLOWS}{author.pk}/").status_code == 200
    assert client.delete(f"{FOLLOWS}{author.pk}/").status_code == 204
    assert client.delete(f"{FOLLOWS}{author.pk}/").status_code == 204
    assert not Follow.objects.exists()
    missing = client.get(f"{FOLLOWS}{author.pk}/")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


def test_bad_input_answers_in_the_error_shape(stranger):
    client = api(stranger)
    response = client.post(FOLLOWS, {"author": 999999}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["status"], error["code"]) == (400, "invalid")
    assert "author" in error["details"]
    assert client.delete(f"{FOLLOWS}999999/").status_code == 404


def test_the_owner_cannot_follow_their_own_record_through_the_api(author, owner):
    response = api(owner).post(FOLLOWS, {"author": author.pk}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "follow_refused"
    assert "your own record" in response.json()["error"]["message"]


def test_callers_must_sign_in(author):
    client = api()
    for response in (
        client.get(FOLLOWS),
        client.post(FOLLOWS, {"author": author.pk}, format="json"),
        client.delete(f"{FOLLOWS}{author.pk}/"),
    ):
        assert response.status_code in (401, 403)
        error = response.json()["error"]
        assert error["code"] == "not_authenticated"
        assert set(error) == {"status", "code", "message", "details"}
    assert not Follow.objects.exists()


def test_session_callers_need_the_csrf_token_and_token_callers_do_not(author, stranger):
    response = api(stranger, csrf=True).post(FOLLOWS, {"author": author.pk}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]["message"]
    token_client = api(stranger, token=True)
    token_client.handler.enforce_csrf_checks = True
    assert token_client.post(FOLLOWS, {"author": author.pk}, format="json").status_code == 201


@pytest.mark.parametrize("who", ["stranger", "owner", "staff"])
def test_nobody_unfollows_for_someone_else(request, author, follower, who):
    client = api(request.getfixturevalue(who))
    assert client.delete(f"{FOLLOWS}{author.pk}/").status_code == 204
    assert Follow.objects.filter(user=follower, author=author).exists()
    assert client.get(f"{FOLLOWS}{author.pk}/").status_code == 404  # not theirs to see


def test_staff_see_only_their_own_follows_too(author, follower, staff):
    assert api(staff).get(FOLLOWS).json()["count"] == 0


def test_follow_calls_past_the_rate_limit_answer_429_in_the_error_shape(
    author, stranger, monkeypatch
):
    monkeypatch.setattr(following, "FOLLOW_RATE", "2/m")
    client = api(stranger, token=True)
    assert client.post(FOLLOWS, {"author": author.pk}, format="json").status_code == 201
    assert client.delete(f"{FOLLOWS}{author.pk}/").status_code == 204
    response = client.post(FOLLOWS, {"author": author.pk}, format="json")
    assert response.status_code == 429
    wait = response.json()["error"]["details"]["retry_after"]
    assert response.json() == {
        "error": {
            "status": 429,
            "code": "throttled",
            "message": "Too many requests: please wait a little and try again.",
            "details": {"retry_after": wait},
        }
    }
    assert 0 < wait <= 60 and response["Retry-After"] == str(wait)  # what is left of the minute
    assert not Follow.objects.exists()
    assert client.get(FOLLOWS).status_code == 200  # reading is not limited


def test_follows_are_in_the_schema_and_it_validates(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/follows/:" in text
    assert "/api/v1/follows/{author_id}/:" in text
    assert "operationId: v1_follows_destroy" in text

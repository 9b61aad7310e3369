"""Rate-limited requests answer 429: a page for people, the error shape under /api/."""

from types import SimpleNamespace

import django_ratelimit.core
import pytest

from config.ratelimits import wait_phrase

PINNED_CLOCK = 1_800_000_000

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.config.ratelimit_urls")]


def test_a_page_past_its_limit_answers_429_with_a_page(client):
    assert client.get("/limited/").status_code == 200
    assert client.get("/limited/").status_code == 200
    response = client.get("/limited/")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many requests" in response.content.decode()


@pytest.fixture(autouse=True)
def pinned_clock(monkeypatch):
    """Hold the limits' clock still, so no window ends between a test's requests.

    django-ratelimit staggers each key's windows by a hash of the key, so the wait
    a 429 names depends on the clock: at this one, the test client's hourly window
    has about half an hour to run, and every run sees the same wait.
    """
    monkeypatch.setattr(django_ratelimit.core, "time", SimpleNamespace(time=lambda: PINNED_CLOCK))


def test_the_429_page_says_when_an_hourly_limit_lifts(client):
    assert client.get("/hourly/").status_code == 200
    response = client.get("/hourly/")
    assert response.status_code == 429
    seconds = int(response["Retry-After"])
    assert 60 < seconds <= 3600
    page = response.content.decode()
    assert wait_phrase(seconds) in page
    assert "in a minute" not in page


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (30, "in a minute"),
        (60, "in a minute"),
        (61, "in about 2 minutes"),
        (40 * 60, "in about 40 minutes"),
        (3600, "in about 60 minutes"),
        (2 * 3600 + 100, "in about 2 hours"),
        (3 * 86400, "in about 3 days"),
    ],
)
def test_the_wait_is_said_in_words(seconds, words):
    assert wait_phrase(seconds) == words


def test_an_api_call_past_its_limit_answers_429_in_the_error_shape(client):
    for _ in range(2):
        assert client.post("/api/v1/limited/").status_code == 200
    response = client.post("/api/v1/limited/")
    assert response.status_code == 429
    body = response.json()
    retry_after = body["error"]["details"]["retry_after"]
    assert 1 <= retry_after <= 60
    assert response["Retry-After"] == str(retry_after)
    assert body == {
        "error": {
            "status": 429,
            "code": "throttled",
            "message": "Too many requests: please wait a little and try again.",
            "details": {"retry_after": retry_after},
        }
    }


def test_the_limit_is_per_client(client):
    for _ in range(3):
        client.get("/limited/")
    other = client.get("/limited/", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 200

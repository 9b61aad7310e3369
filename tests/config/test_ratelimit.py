"""Rate-limited requests answer 429: a page for people, the error shape under /api/."""

import pytest

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.config.ratelimit_urls")]


def test_a_page_past_its_limit_answers_429_with_a_page(client):
    assert client.get("/limited/").status_code == 200
    assert client.get("/limited/").status_code == 200
    response = client.get("/limited/")
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    assert "Too many requests" in response.content.decode()


def test_an_api_call_past_its_limit_answers_429_in_the_error_shape(client):
    for _ in range(2):
        assert client.post("/api/v1/limited/").status_code == 200
    response = client.post("/api/v1/limited/")
    assert response.status_code == 429
    assert response.json() == {
        "error": {
            "status": 429,
            "code": "throttled",
            "message": "Too many requests: please wait a little and try again.",
            "details": {"retry_after": 60},
        }
    }


def test_the_limit_is_per_client(client):
    for _ in range(3):
        client.get("/limited/")
    other = client.get("/limited/", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 200

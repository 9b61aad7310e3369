"""/healthz reports the database, the cache and the broker."""

import pytest
from django.db import OperationalError, connection

from config import views
from config.celery import app as celery_app

pytestmark = pytest.mark.django_db

CLOSED_PORT_REDIS = "redis://127.0.0.1:1/0"


def test_all_up_answers_200_with_every_check(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["down"] == []
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert body["checks"]["database"]["engine"] == connection.vendor


def test_database_down_answers_503_naming_it(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(views.connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["database"]
    assert "server closed the connection" in body["checks"]["database"]["error"]


def test_cache_down_answers_503_naming_it(client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CLOSED_PORT_REDIS,
            "OPTIONS": {"socket_connect_timeout": 1},
        }
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["down"] == ["cache"]


def test_broker_down_answers_503_naming_it(client, settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(celery_app.conf, "broker_url", CLOSED_PORT_REDIS)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["broker"]
    assert body["checks"]["broker"]["ok"] is False


@pytest.mark.services
def test_real_redis_broker_is_reported_up(client, settings):
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set: the embedded run has no broker to check")
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["checks"]["broker"]["mode"] == "redis"

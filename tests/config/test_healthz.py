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


# Liveness and readiness ---------------------------------------------------------------------


def test_liveness_asks_nothing_of_the_database_cache_or_broker(client, monkeypatch):
    def broken(*args, **kwargs):
        raise AssertionError("liveness must not depend on another service")

    for name in views.CHECKS:
        monkeypatch.setitem(views.CHECKS, name, broken)
    monkeypatch.setattr(views.connection, "cursor", broken)
    response = client.get("/healthz/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readiness_answers_503_when_a_service_is_down_and_liveness_still_200(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(views.connection, "cursor", broken_cursor)
    assert client.get("/healthz/ready").status_code == 503
    assert client.get("/healthz/ready").json()["down"] == ["database"]
    assert client.get("/healthz/live").status_code == 200


def test_healthz_is_still_the_readiness_check(client):
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and set(body["checks"]) == {"database", "cache", "broker"}


def test_readiness_says_when_the_cache_answers_from_memory(client, settings, tmp_path):
    from django.core.cache import caches

    from tests.own_redis import OwnRedis

    redis = OwnRedis(tmp_path).start()
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.FallbackRedisCache",
            "LOCATION": redis.url,
            "OPTIONS": {"socket_connect_timeout": 1, "RETRY_AFTER": 3600},
        }
    }
    try:
        body = client.get("/healthz/ready").json()
        assert body["status"] == "ok" and body["degraded"] == []
        redis.stop()
        caches["default"].get("anything")  # the next call finds Redis gone
        response = client.get("/healthz/ready")
    finally:
        redis.stop()
    body = response.json()
    assert response.status_code == 200  # pages are still served
    assert body["status"] == "degraded" and body["degraded"] == ["cache"]
    assert "memory" in body["checks"]["cache"]["fallback"]


def test_the_container_probe_passes_on_a_200_and_fails_otherwise(live_server, monkeypatch):
    from config import healthcheck

    port = live_server.url.rsplit(":", 1)[1]
    monkeypatch.setenv("ALLOWED_HOSTS", "")
    assert healthcheck.probe("live", port=port)
    assert healthcheck.probe("ready", port=port)
    from tests.own_redis import free_port

    assert not healthcheck.probe("live", port=str(free_port()), timeout=1)
    assert healthcheck.main(["probe", "sideways"]) == 2

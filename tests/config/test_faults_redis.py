"""Redis stopped mid-test (a redis-server of the test's own): every page and form still works.

The cache answers from the process's memory and says so once in the log; rate
limits keep counting (per process); follow-up tasks run in the sending process;
an import asked for meanwhile waits to be sent and is sent by ``watch_imports``
once the broker answers again.
"""

from __future__ import annotations

import logging

import kombu.pools
import pytest
import redis
from allauth.account.models import EmailAddress
from django.core.cache import cache
from django.test import override_settings

from catalogue.models import ImportRun
from config import cache as fallback_cache
from config import celery as celery_module
from config.celery import app as celery_app
from ingestion import tasks
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.own_redis import own_redis  # noqa: F401 - a fixture
from tests.people import PASSWORD, person


def _cache_settings(url: str) -> dict:
    return {
        "default": {
            "BACKEND": "config.cache.FallbackRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "sp-test",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1, "RETRY_AFTER": 0},
        }
    }


def _close_broker_connections() -> None:
    if celery_app._pool is not None:
        celery_app._pool.force_close_all()
        celery_app._pool = None
    celery_app.amqp._producer_pool = None
    kombu.pools.reset()  # kombu's shared pools too, or a later send finds them closed


@pytest.fixture
def redis_site(own_redis, monkeypatch):  # noqa: F811
    """The site's cache and broker on the test's own Redis; tasks sent, not run inline."""
    monkeypatch.setattr(celery_module, "BROKER_RETRY_AFTER", 0)
    monkeypatch.setattr(celery_module.broker, "down", False)
    conf = celery_app.conf
    saved = conf.broker_url, conf.task_always_eager
    _close_broker_connections()
    conf.broker_url, conf.task_always_eager = own_redis.url, False
    # Code that asks whether tasks run inline reads the setting (graph.views does).
    with override_settings(CACHES=_cache_settings(own_redis.url), CELERY_TASK_ALWAYS_EAGER=False):
        yield own_redis
    _close_broker_connections()
    conf.broker_url, conf.task_always_eager = saved


def _queued_messages(url: str, queue: str) -> int:
    return redis.Redis.from_url(url).llen(queue)


# The cache on its own ---------------------------------------------------------------


def test_the_cache_answers_from_memory_while_redis_is_down_and_says_so_once(
    own_redis,  # noqa: F811
    caplog,
):
    store = fallback_cache.FallbackRedisCache(
        own_redis.url, {"OPTIONS": {"socket_connect_timeout": 1, "RETRY_AFTER": 0}}
    )
    store.set("shared", "in redis", 60)
    assert redis.Redis.from_url(own_redis.url).dbsize() == 1  # really written to Redis

    own_redis.stop()
    with caplog.at_level(logging.WARNING, logger="config"):
        assert store.get("shared") is None  # a miss, not an error
        assert store.add("counter", 1, 60) is True
        assert store.incr("counter") == 2
        assert store.add("counter", 1, 60) is False
        store.set_many({"a": 1, "b": 2}, 60)
        assert store.get_many(["a", "b", "c"]) == {"a": 1, "b": 2}
        store.delete("a")
        assert not store.has_key("a")
        with pytest.raises(ValueError):
            store.incr("never-set")  # the same answer Redis gives
    down = [r for r in caplog.records if "not answering" in r.getMessage()]
    assert len(down) == 1
    assert store.unavailable

    own_redis.start()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="config"):
        store.set("again", "in redis", 60)
    assert store.get("again") == "in redis"
    assert not store.unavailable
    assert redis.Redis.from_url(own_redis.url).exists(store.make_key("again"))
    assert any("answers again" in r.getMessage() for r in caplog.records)


def test_after_a_failure_redis_is_not_asked_again_until_the_pause_ends(own_redis):  # noqa: F811
    store = fallback_cache.FallbackRedisCache(own_redis.url, {"OPTIONS": {"RETRY_AFTER": 3600}})
    own_redis.stop()
    store.set("key", "memory", 60)
    own_redis.start()
    # Within the pause the memory answers, so a page does not wait for a dead server.
    assert store.get("key") == "memory"
    assert redis.Redis.from_url(own_redis.url).dbsize() == 0


# The site with Redis stopped ----------------------------------------------------------


@pytest.mark.django_db
def test_sign_in_and_sign_up_work_while_redis_is_down(client, redis_site):
    user = person("ada")
    redis_site.stop()

    assert client.get("/accounts/login/").status_code == 200
    wrong = client.post("/accounts/login/", {"login": user.email, "password": "nope"})
    assert wrong.status_code == 200
    right = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert right.status_code == 302
    client.logout()

    signup = client.post(
        "/accounts/signup/",
        {"email": "grace@example.org", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert signup.status_code == 302
    assert EmailAddress.objects.filter(email="grace@example.org").exists()


@pytest.mark.django_db
@pytest.mark.urls("tests.config.ratelimit_urls")
def test_rate_limits_still_limit_while_redis_is_down(client, redis_site, caplog):
    redis_site.stop()
    with caplog.at_level(logging.WARNING, logger="config"):
        assert client.get("/limited/").status_code == 200
        assert client.get("/limited/").status_code == 200
        assert client.get("/limited/").status_code == 429  # counted in this process
    assert sum("not answering" in r.getMessage() for r in caplog.records) == 1


@pytest.mark.django_db
def test_a_rate_limited_form_and_its_follow_up_work_while_redis_is_down(
    client, redis_site, stranger
):
    author = AuthorFactory()
    client.force_login(stranger)
    redis_site.stop()
    response = client.post(f"/researchers/{author.pk}/follow/")
    assert response.status_code in {200, 302}
    assert stranger.follows.filter(author=author).exists()


@pytest.mark.django_db
def test_the_graph_slice_is_built_in_the_request_while_redis_is_down(client, redis_site):
    author = AuthorFactory(display_name="Ada Lovelace")
    AuthorshipFactory(author=author, work=WorkFactory())
    redis_site.stop()
    response = client.get(f"/researchers/{author.pk}/graph/slice/")
    assert response.status_code == 200
    assert "Research graph of" in response.content.decode()


@pytest.mark.django_db
def test_the_graph_slice_is_queued_while_redis_answers(client, redis_site):
    author = AuthorFactory()
    AuthorshipFactory(author=author, work=WorkFactory())
    response = client.get(f"/researchers/{author.pk}/graph/slice/")
    assert response.status_code == 200
    assert "Research graph of" not in response.content.decode()  # the placeholder
    assert _queued_messages(redis_site.url, "compute") == 1


@pytest.mark.django_db(transaction=True)
def test_an_import_asked_for_while_the_broker_is_down_is_sent_once_it_answers(
    client, redis_site, staff
):
    client.force_login(staff)
    redis_site.stop()

    body = {"source": "openalex", "kind": "author", "parameters": {"id": "A5023888391"}}
    response = client.post("/api/v1/imports/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    run = ImportRun.objects.get(pk=response.json()["id"])
    assert run.status == ImportRun.Status.WAITING
    assert run.task_id == ""

    assert tasks.watch_imports() == {"sent": 0, "resumed": []}  # still down: it keeps waiting
    run.refresh_from_db()
    assert run.status == ImportRun.Status.WAITING

    redis_site.start()
    assert tasks.watch_imports() == {"sent": 1, "resumed": []}
    run.refresh_from_db()
    assert run.status == ImportRun.Status.QUEUED
    assert run.task_id
    assert _queued_messages(redis_site.url, "imports") == 1
    assert tasks.watch_imports()["sent"] == 0  # sent once only


@pytest.mark.django_db
def test_the_shared_cache_is_back_once_redis_answers(redis_site):
    redis_site.stop()
    cache.set("while-down", 1, 60)
    redis_site.start()
    cache.set("after", 2, 60)
    assert redis.Redis.from_url(redis_site.url).dbsize() == 1

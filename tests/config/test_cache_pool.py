"""The Redis cache talks to Redis through one client and connection pool per process.

Django's own client builds a ``redis.Redis`` for every cache call; this one is made
once and shared by every cache of the same server in the process. A forked process
(a gunicorn worker, a Celery prefork child) opens connections of its own and leaves
its parent's alone. ``get_or_add_many`` reads and gives page versions in one round
trip, from memory too while Redis is down.
"""

from __future__ import annotations

import os

import pytest
import redis

from config import cache as fallback_cache
from tests.own_redis import own_redis  # noqa: F401 - a fixture


def _store(url: str, **options) -> fallback_cache.FallbackRedisCache:
    return fallback_cache.FallbackRedisCache(
        url, {"OPTIONS": {"socket_connect_timeout": 1, "RETRY_AFTER": 0, **options}}
    )


@pytest.fixture
def commands(monkeypatch) -> list[str]:
    """The name of every command a ``redis.Redis`` sends (a script is one EVALSHA)."""
    sent: list[str] = []
    original = redis.Redis.execute_command

    def counting(self, *args, **options):
        sent.append(str(args[0]).upper())
        return original(self, *args, **options)

    monkeypatch.setattr(redis.Redis, "execute_command", counting)
    return sent


def test_every_cache_call_goes_through_one_redis_client(own_redis, monkeypatch):  # noqa: F811
    store = _store(own_redis.url)
    store.set("warm", 1, 60)
    made = []
    original = redis.Redis.__init__

    def counting(self, *args, **kwargs):
        made.append(kwargs)
        original(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting)
    for number in range(10):
        store.set(f"key{number}", number, 60)
        assert store.get(f"key{number}") == number
        assert store.add("warm", 2, 60) is False
        assert store.get_many(["warm", "key0"]) == {"warm": 1 + number, "key0": 0}
        store.incr("warm")
    assert made == []
    assert store._cache.redis.get_client() is store._cache.redis.get_client(write=True)


def test_caches_of_one_server_share_the_processs_client_and_pool(own_redis):  # noqa: F811
    # Each thread has a cache of its own (django.core.cache.caches): they share one client.
    first, second = _store(own_redis.url), _store(own_redis.url)
    assert first._cache.redis is second._cache.redis
    assert first._cache.redis.get_client() is second._cache.redis.get_client()
    other = _store(own_redis.url, socket_timeout=2)  # other options: a client of their own
    assert other._cache.redis is not first._cache.redis


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_process_uses_connections_of_its_own(own_redis):  # noqa: F811
    store = _store(own_redis.url)
    store.set("parent", 1, 60)
    parent_connection = store._cache.redis.get_client().client_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return into pytest
        try:
            client = store._cache.redis.get_client()
            fresh = _store(own_redis.url)._cache.redis is not store._cache.redis
            store.set("child", 2, 60)
            ok = store.get("parent") == 1 and fresh and not store.unavailable
            os.write(write, f"{int(ok)} {client.client_id()}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 100).decode().split()
    os.close(read)
    os.waitpid(pid, 0)
    assert answer[0] == "1"
    assert int(answer[1]) != parent_connection  # the child connected on its own
    # The parent's connection outlived the child, which did not close it.
    assert store._cache.redis.get_client().client_id() == parent_connection
    assert store.get("child") == 2 and not store.unavailable


def test_get_or_add_many_gives_values_only_where_none_is_kept(own_redis, commands):  # noqa: F811
    store = _store(own_redis.url)
    store.set("kept", "old", None)
    store.get_or_add_many({"first": 0}, None)  # a new server learns the script first
    commands.clear()
    found = store.get_or_add_many({"kept": "new", "given": "here", "number": 7}, None)
    assert found == {"kept": "old", "given": "here", "number": 7}
    assert commands == ["EVALSHA"]  # one round trip
    assert store.get_many(["kept", "given", "number"]) == found
    server = redis.Redis.from_url(own_redis.url)
    assert server.ttl(store.make_key("given")) == -1  # kept for good, as set_many(None)

    store.get_or_add_many({"brief": 1}, 60)
    assert 0 < server.ttl(store.make_key("brief")) <= 60
    assert store.get_or_add_many({"gone": 1}, 0) == {}  # no lifetime: nothing given
    assert not server.exists(store.make_key("gone"))


def test_get_or_add_many_answers_from_memory_while_redis_is_down(own_redis):  # noqa: F811
    store = _store(own_redis.url, RETRY_AFTER=3600)
    own_redis.stop()
    assert store.get_or_add_many({"a": "first"}, None) == {"a": "first"}
    assert store.get_or_add_many({"a": "second", "b": "x"}, None) == {"a": "first", "b": "x"}
    assert store.unavailable

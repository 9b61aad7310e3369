"""The API throttles count in one round trip to Redis, deciding as DRF's own history does,
and go on counting in memory while Redis is down."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.test import RequestFactory, override_settings

from config.throttles import AnonThrottle
from tests.own_redis import own_redis  # noqa: F401 - a fixture

# Request times in seconds: bursts, a pause past the window, a request right at its edge.
TIMES = [0, 1, 2, 2, 3, 10, 59, 60, 61, 62, 62.5, 125, 126, 126, 127, 185, 186, 300]


def _decisions(cache, times, limit=3) -> list[tuple[bool, float | None]]:
    """Whether each request at ``times`` passes an anonymous throttle of ``limit`` a
    minute counting in ``cache``, and the wait it would then announce."""
    request = RequestFactory().get("/api/v1/topics/", REMOTE_ADDR="192.0.2.7")
    request.user = AnonymousUser()
    found = []
    for moment in times:
        throttle = AnonThrottle()
        throttle.cache, throttle.rate = cache, f"{limit}/min"
        throttle.num_requests, throttle.duration = limit, 60
        throttle.timer = lambda moment=moment: 1_000_000.0 + moment
        allowed = throttle.allow_request(request, None)
        found.append((allowed, None if allowed else round(throttle.wait(), 6)))
    return found


@pytest.fixture
def redis_cache(own_redis):  # noqa: F811
    settings = {
        "default": {
            "BACKEND": "config.cache.FallbackRedisCache",
            "LOCATION": own_redis.url,
            "KEY_PREFIX": "sp-test",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1, "RETRY_AFTER": 0},
        }
    }
    with override_settings(CACHES=settings):
        yield caches["default"]


def test_the_log_on_redis_decides_as_drfs_history_does(redis_cache):
    drf = _decisions(LocMemCache("drf-reference", {}), TIMES)  # no log: DRF's own counting
    assert [allowed for allowed, _ in drf].count(False) >= 5  # the sequence is throttled
    assert _decisions(redis_cache, TIMES) == drf


def test_while_redis_is_down_the_log_goes_on_in_memory(redis_cache, own_redis):  # noqa: F811
    own_redis.stop()
    assert _decisions(redis_cache, TIMES) == _decisions(LocMemCache("drf-again", {}), TIMES)
    assert redis_cache.unavailable


def test_each_request_is_logged_in_one_round_trip(redis_cache, monkeypatch):
    import redis

    sent: list[str] = []
    original = redis.Redis.execute_command

    def counting(self, *args, **options):
        sent.append(str(args[0]).upper())
        return original(self, *args, **options)

    _decisions(redis_cache, [0])  # the server learns the script
    monkeypatch.setattr(redis.Redis, "execute_command", counting)
    _decisions(redis_cache, [1, 2, 3, 4])
    assert sent == ["EVALSHA"] * 4

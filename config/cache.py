"""A Redis cache that keeps working, in this process's memory, while Redis is down.

Django's ``RedisCache`` raises when Redis does not answer, and everything that
counts with the cache raises with it: sign-in and sign-up limits, the site's
rate limits, the API's throttles, the graph slice. This backend answers from a
per-process memory cache instead, says so once in the log, and goes back to
Redis once it answers again. Rate limits keep limiting meanwhile, counted per
process rather than across processes.

After a failure Redis is not asked again for ``RETRY_AFTER`` seconds (an
option, 5 by default), so a request does not wait for a dead server at every
cache call.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger("config")

UNAVAILABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
METHODS = (
    "add",
    "get",
    "set",
    "touch",
    "delete",
    "get_many",
    "has_key",
    "incr",
    "set_many",
    "delete_many",
    "clear",
)


class _FallbackClient:
    """The Redis client's methods, answered from memory while Redis is unreachable."""

    def __init__(self, servers, *, retry_after: float, name: str, **options):
        self.redis = RedisCacheClient(servers, **options)
        # Keys and timeouts arrive already made by RedisCache; the memory cache only stores.
        self.memory = LocMemCache(f"redis-fallback-{name}", {"TIMEOUT": None})
        self.retry_after = retry_after
        self.down_until = 0.0
        self.down = False
        self.lock = threading.Lock()

    def call(self, method: str, *args):
        if self.down and time.monotonic() < self.down_until:
            return getattr(self.memory, method)(*args)
        try:
            result = getattr(self.redis, method)(*args)
        except UNAVAILABLE as exc:
            self._went_down(exc)
            return getattr(self.memory, method)(*args)
        if self.down:
            self._came_back()
        return result

    def _went_down(self, exc: Exception) -> None:
        with self.lock:
            self.down_until = time.monotonic() + self.retry_after
            if self.down:
                return
            self.down = True
        logger.warning(
            "cache: Redis is not answering (%s); using this process's memory until it "
            "answers again (rate limits count per process meanwhile)",
            type(exc).__name__,
        )

    def _came_back(self) -> None:
        with self.lock:
            if not self.down:
                return
            self.down = False
        self.memory.clear()  # what was counted meanwhile is not carried over
        logger.warning("cache: Redis answers again; the cache is shared again")


def _forward(method: str):
    def call(self, *args):
        return self.call(method, *args)

    call.__name__ = method
    return call


for _method in METHODS:
    setattr(_FallbackClient, _method, _forward(_method))


class FallbackRedisCache(RedisCache):
    """``RedisCache`` answering from memory while Redis is down (see the module)."""

    def __init__(self, server, params):
        super().__init__(server, params)
        options = dict(self._options)
        retry_after = float(options.pop("RETRY_AFTER", 5))
        self._options = options
        self._class = lambda servers, **kwargs: _FallbackClient(
            servers, retry_after=retry_after, name=str(id(self)), **kwargs
        )

    @property
    def unavailable(self) -> bool:
        """Whether the last call found Redis down (the memory fallback is answering)."""
        return self._cache.down

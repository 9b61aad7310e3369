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

Each process talks to a Redis server through one client and its connection
pool (``_PooledClient``), whichever thread asks: Django's own client builds a
new ``redis.Redis`` for every cache call, and each thread's cache its own pool.
A forked process (a gunicorn worker, a Celery prefork child) never uses its
parent's connections: a client it inherited opens its own (the pool checks the
process id), and a cache it makes gets a client of its own.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
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
    "add_many",
    "throttle_log",
)


# Each key's value, first set to the one given where the key has none: KEYS the keys,
# ARGV their values, then the lifetime in seconds ("" for none).
_ADD_MANY = """
local lifetime = tonumber(ARGV[#KEYS + 1])
local found = {}
for i, key in ipairs(KEYS) do
    local value = redis.call("GET", key)
    if not value then
        value = ARGV[i]
        if lifetime then
            redis.call("SET", key, value, "EX", lifetime)
        else
            redis.call("SET", key, value)
        end
    end
    found[i] = value
end
return found
"""


# A request logged against a rate: KEYS the log (a sorted set of request times), ARGV
# now, the duration in seconds, the requests allowed in it, and a name for this request.
# Times older than the duration go; the request is logged when fewer than the allowed
# number remain. Returns whether it was, the requests in the log and the oldest time.
_THROTTLE_LOG = """
local now, duration = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now - duration)
local count = redis.call("ZCARD", KEYS[1])
local allowed = 0
if count < tonumber(ARGV[3]) then
    redis.call("ZADD", KEYS[1], now, ARGV[4])
    redis.call("PEXPIRE", KEYS[1], math.ceil(duration * 1000))
    allowed, count = 1, count + 1
end
local oldest = redis.call("ZRANGE", KEYS[1], 0, 0, "WITHSCORES")
return {allowed, count, oldest[2] or ARGV[1]}
"""


class _PooledClient(RedisCacheClient):
    """Django's Redis cache client, with one ``redis.Redis`` kept per server (and pool).

    ``add_many`` sets the keys that have no value and reads every value, and
    ``throttle_log`` logs a request against a rate, each in one round trip (a script:
    one command, one answer).
    """

    def __init__(self, servers, **options):
        super().__init__(servers, **options)
        self._clients = {}
        self._add_many = self._throttle_log = None

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            if index not in self._pools:
                url = self._servers[index]
                self._pools[index] = self._pool_class.from_url(url, **self._pool_options)
            client = self._clients.setdefault(
                index, self._client(connection_pool=self._pools[index])
            )
        return client

    def add_many(self, data: dict, timeout) -> dict:
        if self._add_many is None:
            self._add_many = self.get_client(None, write=True).register_script(_ADD_MANY)
        values = [self._serializer.dumps(value) for value in data.values()]
        found = self._add_many(keys=list(data), args=[*values, timeout or ""])
        return {key: self._serializer.loads(value) for key, value in zip(data, found, strict=True)}

    def throttle_log(self, key: str, now: float, duration: int, allowed: int):
        if self._throttle_log is None:
            self._throttle_log = self.get_client(None, write=True).register_script(_THROTTLE_LOG)
        name = f"{now!r}:{uuid.uuid4().hex[:8]}"
        logged, count, oldest = self._throttle_log(keys=[key], args=[now, duration, allowed, name])
        return bool(logged), int(count), float(oldest)


_shared: dict[tuple, _PooledClient] = {}
_shared_pid = os.getpid()
_shared_lock = threading.Lock()


def _pooled(servers, **options) -> _PooledClient:
    """This process's client of ``servers`` with ``options``: made once per process."""
    global _shared_pid
    key = (tuple(servers), repr(sorted(options.items())))
    with _shared_lock:
        if _shared_pid != os.getpid():  # forked: the parent's connections are not ours
            _shared.clear()
            _shared_pid = os.getpid()
        if key not in _shared:
            _shared[key] = _PooledClient(servers, **options)
        return _shared[key]


class _Memory(LocMemCache):
    """The memory cache standing in for Redis, with ``_PooledClient.add_many`` and
    ``throttle_log``."""

    def add_many(self, data: dict, timeout) -> dict:
        return {
            key: value if self.add(key, value, timeout) else self.get(key, value)
            for key, value in data.items()
        }

    def throttle_log(self, key: str, now: float, duration: int, allowed: int):
        times = [t for t in self.get(key, ()) if t > now - duration]
        logged = len(times) < allowed
        if logged:
            times.append(now)
            self.set(key, times, duration)
        return logged, len(times), min(times, default=now)


class _FallbackClient:
    """The Redis client's methods, answered from memory while Redis is unreachable."""

    def __init__(self, servers, *, retry_after: float, name: str, **options):
        self.redis = _pooled(servers, **options)
        # Keys and timeouts arrive already made by RedisCache; the memory cache only stores.
        self.memory = _Memory(f"redis-fallback-{name}", {"TIMEOUT": None})
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

    def get_or_add_many(self, data: dict, timeout=DEFAULT_TIMEOUT, version=None) -> dict:
        """The values of ``data``'s keys, each given its value in ``data`` where it has
        none (as ``add`` would), in one round trip. A timeout of 0 keeps nothing: only
        the values already there are read."""
        timeout = self.get_backend_timeout(timeout)
        if timeout == 0:
            return self.get_many(list(data), version=version)
        made = {self.make_and_validate_key(key, version=version): key for key in data}
        found = self._cache.add_many({key: data[name] for key, name in made.items()}, timeout)
        return {made[key]: value for key, value in found.items()}

    def throttle_log(
        self, key: str, now: float, duration: int, allowed: int, version=None
    ) -> tuple[bool, int, float]:
        """Log a request at ``now`` under ``key`` unless ``allowed`` requests are logged in
        the ``duration`` seconds before it, in one round trip. Returns whether it was
        logged, how many requests the log then holds, and the oldest one's time."""
        made = self.make_and_validate_key(f"log:{key}", version=version)
        return self._cache.throttle_log(made, now, duration, allowed)

    @property
    def unavailable(self) -> bool:
        """Whether the last call found Redis down (the memory fallback is answering)."""
        return self._cache.down


def cache_tables_made(using: str = "default", **kwargs) -> None:
    """Make the table of each cache kept in the database (the embedded run's, without
    Redis) that is not there yet: sent after ``migrate``, so that a database migrated
    by ``manage.py migrate`` alone can serve pages. Any other cache needs nothing."""
    from django.conf import settings
    from django.core.management import call_command

    if any(c.get("BACKEND", "").endswith(".DatabaseCache") for c in settings.CACHES.values()):
        call_command("createcachetable", database=using, verbosity=0)

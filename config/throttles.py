"""The API's throttles, counted per client address as every other limit is.

An anonymous request is counted once, by ``AnonThrottle`` (per client address);
a signed-in account's once, by ``UserThrottle`` (per account). Each counts in one
round trip where the cache can log a request against a rate itself
(``config.cache.FallbackRedisCache.throttle_log``, the same sliding window as DRF's
history of request times); with any other cache, as DRF does: the history read,
then written back.

Kept apart from config.api: DRF reads DEFAULT_THROTTLE_CLASSES while
rest_framework.views is imported, which config.api itself imports.
"""

from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from config.clientip import client_ip


class _Logged:
    """A rate throttle counting through the cache's ``throttle_log`` where it has one."""

    def allow_request(self, request, view):
        log = getattr(self.cache, "throttle_log", None)
        if log is None or self.rate is None:
            self.logged = None
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        allowed, count, oldest = log(self.key, self.now, self.duration, self.num_requests)
        self.logged = (count, oldest)
        return allowed

    def wait(self):
        """As DRF's: the rest of the oldest request's window, shared among the requests
        the rate would then allow."""
        if getattr(self, "logged", None) is None:
            return super().wait()
        count, oldest = self.logged
        available = self.num_requests - count + 1
        if available <= 0:
            return None
        return (self.duration - (self.now - oldest)) / float(available)


class AnonThrottle(_Logged, AnonRateThrottle):
    """Requests without an account, per client address (``config.clientip``)."""

    def get_ident(self, request):
        return client_ip(request)


class UserThrottle(_Logged, UserRateThrottle):
    """Requests of a signed-in account, per account; anonymous ones are ``AnonThrottle``'s."""

    def get_ident(self, request):
        return client_ip(request)

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None  # counted by AnonThrottle, under a smaller rate
        return super().get_cache_key(request, view)

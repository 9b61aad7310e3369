"""The API's throttles, counted per client address as every other limit is.

An anonymous request is counted once, by ``AnonThrottle`` (per client address);
a signed-in account's once, by ``UserThrottle`` (per account). Each counts with
two cache calls (read the history, write it back).

Kept apart from config.api: DRF reads DEFAULT_THROTTLE_CLASSES while
rest_framework.views is imported, which config.api itself imports.
"""

from __future__ import annotations

from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from config.clientip import client_ip


class AnonThrottle(AnonRateThrottle):
    """Requests without an account, per client address (``config.clientip``)."""

    def get_ident(self, request):
        return client_ip(request)


class UserThrottle(UserRateThrottle):
    """Requests of a signed-in account, per account; anonymous ones are ``AnonThrottle``'s."""

    def get_ident(self, request):
        return client_ip(request)

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None  # counted by AnonThrottle, under a smaller rate
        return super().get_cache_key(request, view)

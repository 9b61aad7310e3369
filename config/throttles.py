"""The API's throttles, counted per client address as every other limit is.

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
    """Requests of a signed-in account per account; anonymous ones per client address."""

    def get_ident(self, request):
        return client_ip(request)

"""The address of the person making a request: the one rule every limit keys on.

With ``TRUSTED_PROXY_COUNT = 0`` (the default) the site is reached directly and
only ``REMOTE_ADDR`` counts: an ``X-Forwarded-For`` header is whatever the client
chose to send, so it cannot pick a rate-limit bucket or a lockout.

Behind N reverse proxies that each append the address they saw, the client's
address is the N-th entry from the right of ``X-Forwarded-For``; entries to
its left were written by the client and are ignored. A header shorter than N,
or an entry that is not an IP address, means the request did not come the way
the setting says, and ``REMOTE_ADDR`` is used instead.

django-ratelimit (``RATELIMIT_IP_META_KEY``), django-axes
(``AXES_CLIENT_IP_CALLABLE``), allauth (``config.accounts.AccountAdapter``) and
the API throttles (``config.throttles``) all call :func:`client_ip`.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def forwarded_client(request: HttpRequest, proxies: int) -> str | None:
    """The address the outermost of ``proxies`` trusted proxies saw, if the header has it."""
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop for hop in header.split(",") if hop.strip()]
    if proxies < 1 or len(hops) < proxies:
        return None
    return _address(hops[-proxies])


def client_ip(request: HttpRequest) -> str:
    """The address limits and lockouts key on (see the module docstring)."""
    proxies = getattr(settings, "TRUSTED_PROXY_COUNT", 0)
    forwarded = forwarded_client(request, proxies) if proxies else None
    if forwarded:
        return forwarded
    remote = request.META.get("REMOTE_ADDR") or ""
    return _address(remote) or remote

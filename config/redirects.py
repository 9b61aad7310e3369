"""Where a form may send its sender back to: only a path on this site."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def safe_next_url(request: HttpRequest, fallback: str) -> str:
    """The ``next`` the request names when it is a path on this site, else ``fallback``.

    A bare word (``next=abc``) is not a path: ``redirect()`` would try to reverse
    it as a URL name and fail, so only targets that start with ``/`` are kept.
    ``url_has_allowed_host_and_scheme`` refuses ``//host``, ``/\\host`` and
    other spellings that browsers read as another site.
    """
    target = (request.POST.get("next") or request.GET.get("next") or "").strip()
    if (
        target.startswith("/")
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
        and not any(ord(char) < 32 for char in target)
    ):
        return target
    return fallback

"""The site's public address (``SITE_URL``) for links that leave a request behind.

Mail and feeds are read far from the request that made them (a digest is sent
by a worker; a feed is cached), so their links start with ``SITE_URL``, never
with a Host header. The sites framework's row (used by allauth's messages and
the sitemap) is kept equal to it after every ``migrate``.

The one exception is a DEBUG run that sets no ``SITE_URL`` (``make run``, any
``runserver`` port): there the site's address is the one each request came to,
so links follow the port the site is served on. ``SiteUrlFromRequestMiddleware``
notes it for the request; work done outside a request keeps ``SITE_URL``.
"""

from __future__ import annotations

from contextvars import ContextVar
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed

_request_site_url: ContextVar[str | None] = ContextVar("request_site_url", default=None)


def site_url() -> str:
    """The public address (``scheme://host[:port]``) links start with."""
    return _request_site_url.get() or settings.SITE_URL


def absolute_url(path: str) -> str:
    """``path`` (``/works/1-x/``) as an address on the public site."""
    return site_url() + "/" + path.lstrip("/")


class SiteUrlFromRequestMiddleware:
    """While DEBUG is on and ``SITE_URL`` is unset, the site's address is the request's.

    The host is one of ``ALLOWED_HOSTS`` (``get_host`` refuses any other), so in the
    embedded run links go to the loopback address and port the browser used.
    """

    def __init__(self, get_response):
        if not (settings.DEBUG and settings.SITE_URL_FROM_REQUEST):
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        token = _request_site_url.set(f"{request.scheme}://{request.get_host().lower()}")
        try:
            return self.get_response(request)
        finally:
            _request_site_url.reset(token)


def site_sync(**_kwargs) -> None:
    """Make the current Site's domain and name those of ``SITE_URL`` and ``SITE_NAME``."""
    from django.contrib.sites.models import Site

    domain = urlsplit(settings.SITE_URL).netloc
    Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain, "name": settings.SITE_NAME[:50]}
    )
    Site.objects.clear_cache()

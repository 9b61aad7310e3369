"""The site's public address (``SITE_URL``) for links that leave a request behind.

Mail and feeds are read far from the request that made them (a digest is sent
by a worker; a feed is cached), so their links start with ``SITE_URL``, never
with a Host header. The sites framework's row (used by allauth's messages and
the sitemap) is kept equal to it after every ``migrate``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def absolute_url(path: str) -> str:
    """``path`` (``/works/1-x/``) as an address on the public site."""
    return settings.SITE_URL + "/" + path.lstrip("/")


def site_sync(**_kwargs) -> None:
    """Make the current Site's domain and name those of ``SITE_URL`` and ``SITE_NAME``."""
    from django.contrib.sites.models import Site

    domain = urlsplit(settings.SITE_URL).netloc
    Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain, "name": settings.SITE_NAME[:50]}
    )
    Site.objects.clear_cache()

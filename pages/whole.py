"""What the pages kept whole share (``pages.researcher_pages``, ``pages.work_pages``).

A page is kept whole for the visit most of its visitors make (``plain_visit``), drawn
ahead of them by a task on a request such a visitor makes (``anyone_at``), and kept
by a visit that drew it only where its page versions held still (``keep_checked``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.auth.models import AnonymousUser
from django.db.models import Model
from django.http import HttpRequest

from config.sites import site_url
from pages import cache as pagecache
from pages import kept


def plain_visit(request: HttpRequest) -> bool:
    """A visit that sees a page kept whole: a cacheable anonymous GET (no cookie) with no
    query string."""
    return pagecache.cacheable_request(request) and not request.GET


def anyone_at(path: str) -> HttpRequest:
    """A request for ``path`` as a visitor without cookie, session or query string makes
    it, at the site's address: a page drawn ahead of its visitors by a task (what such a
    page would keep elsewhere for its visitors is not kept: ``pagecache.DRAWN_AHEAD``)."""
    address = urlsplit(site_url())
    request = HttpRequest()
    request.method = "GET"
    request.path = request.path_info = path
    secure = address.scheme == "https"
    request.META = {
        "SERVER_NAME": address.hostname or "localhost",
        "SERVER_PORT": str(address.port or (443 if secure else 80)),
        "HTTP_HOST": address.netloc or "localhost",
        "wsgi.url_scheme": address.scheme or "http",
    }
    request.user = AnonymousUser()
    request.session = pagecache.empty_session()
    setattr(request, pagecache.DRAWN_AHEAD, True)
    return request


def keep_checked(
    model: type[Model], pk: int, fields: dict[str, str], generation: str, versions: dict
) -> bool:
    """Keep a page a visit drew (``fields`` of a ``model`` row), where none of this
    generation is kept yet and none of the page versions it was drawn under has changed
    since; whether it is kept.

    The visit read its page versions before the rows it drew from. A change committing
    meanwhile forgets the kept page, renews the versions of what it changed once
    committed, then forgets the page again (``kept.forget_twice``): a page kept before
    that second forgetting goes with it, and one kept after it finds a version renewed
    and forgets itself.
    """
    kept.keep_if_possible(model, {pk: fields}, generation)
    if pagecache.versions_unchanged(versions):
        return True
    kept.forget(model, [pk])
    return False

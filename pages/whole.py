"""What the pages kept whole share (``pages.researcher_pages``, ``pages.work_pages``).

A page is kept whole for the visit most of its visitors make (``plain_visit``), drawn
ahead of them by a task on a request such a visitor makes (``anyone_at``), and kept
by a visit that drew it only where its page versions held still (``keep_checked``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
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


def kept_html(
    model: type[Model],
    pk: int,
    generation: str,
    *,
    listed: str,
    state: Sequence[str],
    own: Callable[[tuple], bool],
    listing: Callable[[str], None],
) -> str | None:
    """The HTML of the record's page kept whole: ``kept_columns`` of ``("html",)``."""
    found = kept_columns(
        model, pk, generation, ("html",), listed=listed, state=state, own=own, listing=listing
    )
    return None if found is None else found[0]


def kept_columns(
    model: type[Model],
    pk: int,
    generation: str,
    columns: Sequence[str],
    *,
    listed: str,
    state: Sequence[str],
    own: Callable[[tuple], bool],
    listing: Callable[[str], None],
) -> tuple | None:
    """The ``columns`` of the record's page kept whole (a ``model`` row of
    ``generation``), or None where there is none or where the visit is not the page's own.

    The row's ``listed`` column (what the page lists, whose page versions it is kept
    under) is read first with the record's ``state`` columns; ``own(state)`` says
    whether the visit is the page's own (a record merged away, another address: the
    view answers those). ``listing(listed)`` is told it before the HTML is read, where
    ``listed`` is still the same.
    """
    quote = connection.ops.quote_name
    key = model._meta.pk
    record = key.related_model
    states = ", ".join(f"r.{quote(column)}" for column in state)
    sql = (
        f"SELECT p.{quote(listed)}, {states} FROM {quote(model._meta.db_table)} p"  # noqa: S608
        f" JOIN {quote(record._meta.db_table)} r ON r.{quote(record._meta.pk.column)}"
        f" = p.{quote(key.column)} WHERE p.{quote(key.column)} = %s AND p.generation = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, generation])
        found = cursor.fetchone()
    if found is None or not own(found[1:]):
        return None
    listing(found[0])
    row = kept.kept_row(model, pk, generation, (*columns, listed))
    if row is None or row[-1] != found[0]:
        return None
    return row[:-1]


def draw_ahead(view, records: Sequence[Model], model: type[Model], generation: str) -> int:
    """Draw the page of each of ``records`` (with its ``pk`` and ``slug``) as a visitor
    without cookie or query string sees it, with ``view`` (the page's view, not served
    from the cache), which keeps it as a ``model`` row; how many are kept."""
    if not settings.PAGE_CACHE:  # no page is kept whole
        return 0
    for record in records:
        view(anyone_at(record.get_absolute_url()), record.pk, record.slug)
    kept_now = model.objects.filter(generation=generation, pk__in=[r.pk for r in records])
    return kept_now.count()

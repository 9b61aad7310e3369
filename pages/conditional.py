"""ETag and Last-Modified for answers made of records the page cache versions.

Every record a public answer shows has a page version (``pages.cache``), renewed
whenever what it shows changes. An answer built from known records (a work in the
API, an export) gets an ETag that is a token of their versions, of its address
and query string and of the format asked for, and a Last-Modified that is when
that token was first seen. A conditional GET or HEAD whose validators still hold
is answered 304 before a row is read; any other answer is made as usual and
carries the validators. Only requests without cookies are answered this way (an
API client, a feed reader, a citation manager): a signed-in visitor's answers
get the ETag of their content from ``ConditionalGetMiddleware``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from pages import cache as pagecache

RecordsOf = Callable[..., list[pagecache.Record] | None]


def conditional(records_of: RecordsOf):
    """Answer a view with validators from the versions of ``records_of(request, *args, **kwargs)``.

    ``records_of`` names the records the answer shows, or None when it cannot say
    (then the view answers as it would without validators).
    """

    def decorator(view):
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method not in ("GET", "HEAD") or request.COOKIES:
                return view(request, *args, **kwargs)
            records = records_of(request, *args, **kwargs)
            if records is None:
                return view(request, *args, **kwargs)
            versions = pagecache.versions_current(records)  # before any row is read
            asked = request.headers.get("Accept", "")
            token = pagecache.versions_token(versions, request.get_full_path(), asked)
            etag, since = f'"{token}"', pagecache.token_since(token, note=False)
            modified = int(since) if since else None
            answer = get_conditional_response(request, etag=etag, last_modified=modified)
            if answer is not None:  # 304 (or 412 for an If-Match that fails)
                answer["ETag"] = etag
                if since:
                    answer["Last-Modified"] = http_date(since)
                return answer
            response = view(request, *args, **kwargs)
            if response.status_code == 200 and not response.has_header("ETag"):
                # Noted only for an answer given: a refused query string keeps nothing.
                # A token read as noted above keeps that time (no second round trip).
                since = since or pagecache.token_since(token)
                response["ETag"], response["Last-Modified"] = etag, http_date(since)
            return response

        return wrapped

    return decorator


def work_records(request: HttpRequest, pk: int, *args, **kwargs) -> list[pagecache.Record]:
    """What an answer about one work shows: the work and its linked authors (and names)."""
    return [("work", int(pk)), *pagecache.work_authors(int(pk))]


def author_records(request: HttpRequest, pk: int, *args, **kwargs) -> list[pagecache.Record]:
    """What an answer about one researcher shows of the record alone (and names)."""
    return [("author", int(pk))]

"""Whole pages for anonymous visitors, kept until a record they show changes.

Each record a public page shows (a researcher, a work) has a *page version*: a
token in the cache that ``versions_bump`` renews whenever something shown about
the record changes. The code that makes such a change bumps it: imports and
curation (``authors_changed``), metrics, trust scores, claims, follows and
direct saves of the records. A cached page keeps the versions of every record
it depends on, read before it was rendered; it is served only while they all
still hold, so a change shows at the next request once its bump has run (a
change made by a task shows once that task has run).

A page depends on more than its own record: a work page on its authors, its
matches and theirs, and the page of references and of citing works it lists
(``work_page_records``); a researcher page on every work entry it lists and
their authors (the versions its shared page was kept under). A change to a work
also renews the pages listing it as a reference or a citer (``works_changed``).
What every page may show of venues, topics, institutions and funders is kept
under one version, ``NAMES``: a staff edit of one renews every kept page. Such
edits are rare, and no page then has to name each of them it shows.

Only anonymous requests without any cookie are answered from the cache: no
session means no user, no messages, nothing that varies per visitor, and a hit
reads no SQL at all. Only plain 200 answers are stored, and none that used the
CSRF token or the session. The middleware outside the view (security headers,
CSP, compression) still runs on every answer, cached or not. Every kept page
is renewed at least every ``PAGE_TIMEOUT`` seconds whatever happens. A kept page
carries an ETag (a token of its versions and body) and a Last-Modified (when it
was kept): a conditional GET is answered 304 (``ConditionalGetMiddleware``).

A page is kept per address and per query string, counting only the parameters
the page reads (``PAGE_PARAMETERS``), each given once and shaped as the page
expects, in a fixed order. A request carrying any other parameter, or one given
twice, is answered fresh and kept nowhere: its page could echo the parameter
back (pagination links keep the query string), so it cannot share an entry with
the address without it, and keying on it would let anyone fill the cache with
``?a=1``, ``?a=2``... copies of one page.

Every other visitor (signed in, or with a cookie) gets a *shared page*
(``shared_page``): the page rendered once as an anonymous visitor sees it, with
slots where each visitor's own parts go (account menu, messages, the follow and
claim panels), kept under the versions of every record it shows, list entries
and their authors included. Each request fills the slots for its visitor. The
search page is one too, kept under the ``SEARCH`` version, which every renewal
of any record's version renews.
"""

from __future__ import annotations

import copy
import hashlib
import re
import uuid
from collections.abc import Callable, Iterable
from functools import wraps
from importlib import import_module
from typing import NamedTuple
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.http import http_date

from catalogue.models import Authorship, Citation, Work, WorkSimilarity
from config.sites import site_url
from pages.slots import Slots

PAGE_TIMEOUT = 3600
HEADERS_KEPT = ("Content-Type", "Content-Language", "Cache-Control", "Link")
HIT_HEADER = "X-Page-Cache"

Record = tuple[str, int]  # ("author", pk) or ("work", pk)
# The search page shows any record: every renewal of a record's version renews this one too.
SEARCH: Record = ("search", 0)
# Names of venues, topics, institutions and funders, which any page may show.
NAMES: Record = ("names", 0)
# The attribute of a view's answer holding the versions of the other records it shows.
SHOWN = "page_versions"


def _version_key(kind: str, pk: int) -> str:
    return f"page:v:{kind}:{pk}"


def versions_bump(kind: str, ids: Iterable[int]) -> None:
    """Renew the page versions of these records: their cached pages are stale now.

    A version is renewed by removing it (the next page read gives the record a
    new one), at once and, inside a transaction, again when it commits: a page
    rendered in between, from rows not yet committed, is not kept under the
    final version.
    """
    keys = [_version_key(kind, int(pk)) for pk in ids if pk]
    if keys:
        _renew([*keys, _version_key(*SEARCH)])


def names_bump() -> None:
    """A venue, topic, institution or funder changed: every kept page is stale."""
    _renew([_version_key(*NAMES), _version_key(*SEARCH)])


def _renew(keys: list[str]) -> None:
    cache.delete_many(keys)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: cache.delete_many(keys))


def authors_bump(author_ids: Iterable[int]) -> None:
    versions_bump("author", author_ids)


def works_bump(work_ids: Iterable[int]) -> None:
    versions_bump("work", work_ids)


def works_changed(work_ids: Iterable[int]) -> None:
    """These works changed: renew their pages and those of the works linked to them.

    A work page is kept under the versions of the works it lists, but a link that
    is new (a new citer, a reference now held here) changes the lists themselves:
    the pages at the other end of each citation link are renewed too, and that of
    the work a linked record was merged into (its page lists the record's citers).
    """
    ids = list(work_ids)
    if not ids:
        return
    citing = Citation.objects.filter(cited_id__in=ids).values_list("citing_id", flat=True)
    cited = Citation.objects.filter(citing_id__in=ids, cited__isnull=False)
    linked = {*citing, *cited.values_list("cited_id", flat=True)}
    merged = Work.objects.filter(pk__in=linked, merged_into__isnull=False)
    works_bump({*ids, *linked, *merged.values_list("merged_into_id", flat=True)})


class Versions(dict):
    """Page versions by key. ``new``: one of them was given just now, so no token made
    of them (``versions_token``) can have been noted yet (``token_since``)."""

    new = False


def versions_current(records: Iterable[Record]) -> Versions:
    """The page versions of ``records`` and ``NAMES`` (any page may show a name),
    giving one to those that have none yet."""
    keys = list(dict.fromkeys(_version_key(kind, pk) for kind, pk in [NAMES, *records]))
    given = {key: uuid.uuid4().hex[:12] for key in keys}
    # Set before anything is rendered: a bump racing with this at worst costs
    # one more render, never a stale page (the bump writes after its commit).
    get_or_add_many = getattr(cache, "get_or_add_many", None)  # one round trip to Redis
    if get_or_add_many is not None:
        found = Versions(get_or_add_many(given, None))
    else:
        found = Versions(cache.get_many(keys))
        missing = {key: version for key, version in given.items() if key not in found}
        if missing:
            cache.set_many(missing, None)
            found.update(missing)
    found.new = any(found.get(key) == version for key, version in given.items())
    return found


def cacheable_request(request: HttpRequest) -> bool:
    """An anonymous GET that carries no cookie and asks for the whole page."""
    return (
        request.method in ("GET", "HEAD")
        and not request.COOKIES
        and not request.headers.get("HX-Request")
        and settings.PAGE_CACHE
    )


# A request's attribute: drawn ahead of the page's visitors by a task, not by a visit.
DRAWN_AHEAD = "_page_drawn_ahead"


def cacheable_response(request: HttpRequest, response: HttpResponse) -> bool:
    """A plain 200 page that holds nothing particular to this visitor."""
    session = getattr(request, "session", None)
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not (session is not None and session.modified)
        and not getattr(request, "_messages", None)
    )


_NUMBER = re.compile(r"\d{0,6}")  # a page number or a year
_WORD = re.compile(r"[\w:.-]{0,100}")  # a choice (sort, type, oa...) or a topic key
_TEXT = re.compile(r".{0,1000}", re.DOTALL)  # a search query (SearchForm's own bound)
_WORK_FILTERS = {
    "year_from": _NUMBER,
    "year_to": _NUMBER,
    "type": _WORD,
    "topic": _WORD,
    "oa": _WORD,
}
# The query parameters each kept page reads: the work page's pages of references
# and citing works, the researcher page's work filters (catalogue.filters) and
# the search form's fields (search.works.SearchForm), with their page.
PAGE_PARAMETERS = {
    "work": {"references": _NUMBER, "cited_by": _NUMBER, "authors": re.compile("all")},
    "author": {**_WORK_FILTERS, "sort": _WORD, "has_code": _WORD, "page": _NUMBER},
    "search": {**_WORK_FILTERS, "q": _TEXT, "show": _WORD, "page": _NUMBER},
}


def page_query(kind: str, request: HttpRequest) -> str | None:
    """The query string as the page of ``kind`` reads it, in a fixed order.

    None when the request carries a parameter the page does not read, one given
    twice, or a value the page could not take: such a page is not kept.
    """
    readable = PAGE_PARAMETERS.get(kind, {})
    kept = []
    for name, values in request.GET.lists():
        pattern = readable.get(name)
        if pattern is None or len(values) != 1 or not pattern.fullmatch(values[0]):
            return None
        kept.append((name, values[0]))
    return urlencode(sorted(kept))


def page_key(kind: str, pk: int, request: HttpRequest) -> str | None:
    """The cache key of the page, or None when the page is not kept (``page_query``)."""
    query = page_query(kind, request)
    if query is None:
        return None
    # On the site's address: the page's canonical link and JSON-LD start with it, and a
    # DEBUG run gives each host and port the site is reached at its own (config.sites).
    address = f"{site_url()}{request.path}?{query}"
    digest = hashlib.sha1(address.encode(), usedforsecurity=False).hexdigest()
    # The date is part of the key: pages say "under embargo until", "n years ago".
    return f"page:{kind}:{pk}:{timezone.localdate().isoformat()}:{digest}"


class Token(str):
    """A token of page versions (``versions_token``). ``new``: made of a version given
    just now, so never noted (``token_since`` need not ask)."""

    new = False


def versions_token(versions: dict[str, str], *extra: str) -> Token:
    """A short token of these page versions and ``extra``: it changes when any of them does."""
    text = "|".join([*(f"{key}={versions[key]}" for key in sorted(versions)), *extra])
    token = Token(hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:32])
    token.new = getattr(versions, "new", False)
    return token


def token_since(token: str, *, note: bool = True) -> float | None:
    """When ``token`` was first noted (a POSIX time): what it names is unchanged since then.

    ``note=False`` only reads it (None when never noted, as a ``Token.new`` is).
    """
    key, now = f"page:since:{token}", timezone.now().timestamp()
    if not note:
        return None if getattr(token, "new", False) else cache.get(key)
    return now if cache.add(key, now, PAGE_TIMEOUT * 24) else cache.get(key, now)


def _stored(response: HttpResponse, versions: dict[str, str]) -> dict:
    headers = {name: response[name] for name in HEADERS_KEPT if name in response}
    body, at = response.content, timezone.now().timestamp()
    digest = hashlib.sha1(body, usedforsecurity=False).hexdigest()
    etag = f'"{versions_token(versions, digest)}"'  # versions and the body they were kept with
    kept = dict(versions)  # a plain dict in the cache, whatever class the versions came in
    return {"versions": kept, "body": body, "headers": headers, "etag": etag, "at": at}


def _validators(response: HttpResponse, entry: dict) -> HttpResponse:
    """ETag and Last-Modified of a kept page: a conditional GET of it is answered 304."""
    response["ETag"], response["Last-Modified"] = entry["etag"], http_date(entry["at"])
    return response


def _answer(entry: dict) -> HttpResponse:
    response = HttpResponse(entry["body"])
    for name, value in entry["headers"].items():
        response[name] = value
    response[HIT_HEADER] = "hit"
    return _validators(response, entry) if "etag" in entry else response


def _fresh(entry: dict | None) -> bool:
    return bool(entry) and versions_unchanged(entry["versions"])


def versions_unchanged(versions: dict[str, str]) -> bool:
    """Whether each of these page versions is still current: none renewed since read."""
    return cache.get_many(list(versions)) == dict(versions)


def work_authors(pk: int) -> list[Record]:
    """What a work page shows besides the work: its linked authors.

    Read in SQL, unordered: the ORM's query costs more to build than to run, and
    Authorship's default order would join the works to sort by their dates.
    """
    table = connection.ops.quote_name(Authorship._meta.db_table)
    sql = f"SELECT author_id FROM {table} WHERE work_id = %s"  # noqa: S608 - a quoted name
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        return [("author", author_id) for (author_id,) in cursor.fetchall()]


def work_page_records(pk: int, listed: Iterable[int] = ()) -> list[Record]:
    """What a work page shows besides the work: its matches, the ``listed`` works
    (a page of references and of citing works), and the authors of all of them.

    Read in one statement of plain SQL: the ORM's two queries cost more to build than
    to run.
    """
    given = sorted({pk, *(int(w) for w in listed)})
    quote = connection.ops.quote_name
    matches = quote(WorkSimilarity._meta.db_table)
    authorships = quote(Authorship._meta.db_table)
    places = " UNION ALL ".join(["SELECT %s"] * len(given))
    sql = f"""
        SELECT similar_id, NULL FROM {matches} WHERE work_id = %s
        UNION ALL
        SELECT NULL, author_id FROM (
            SELECT DISTINCT author_id FROM {authorships}
            WHERE author_id IS NOT NULL AND work_id IN (
                SELECT similar_id FROM {matches} WHERE work_id = %s UNION ALL {places}
            )
        ) authors
    """  # noqa: S608 - quoted names of the models' tables, values as parameters
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, pk, *given])
        rows = cursor.fetchall()
    works = {*given, *(work for work, _ in rows if work is not None)}
    authors = [author for work, author in rows if work is None]
    return [*(("work", w) for w in sorted(works)), *(("author", a) for a in authors)]


def answer_shows(response: HttpResponse, versions: dict[str, str] | None) -> HttpResponse:
    """Note on ``response`` the versions of the other records it shows, read before their rows.

    ``anonymous_page`` keeps the page under them too.
    """
    if versions:
        setattr(response, SHOWN, versions)
    return response


# The request's attribute holding the record's versions ``anonymous_page`` read first.
_READ_FIRST = "_page_versions_read_first"


def own_versions(request: HttpRequest, kind: str, pk: int) -> Versions:
    """The page versions of the record (with ``NAMES``) as ``anonymous_page`` read them
    before its view, or read now: one round trip to Redis, not two."""
    read = getattr(request, _READ_FIRST, None)
    if read is not None and read[0] == (kind, pk):
        return read[1]
    return versions_current([(kind, pk)])


def anonymous_page(kind: str):
    """Serve a record page (a view taking ``pk``) from the cache to anonymous visitors.

    The view names the other records the page shows, whose changes make it stale
    too, on its answer (``answer_shows``).
    """

    def decorator(view):
        @wraps(view)
        def wrapped(request: HttpRequest, pk: int, *args, **kwargs) -> HttpResponse:
            key = page_key(kind, pk, request) if cacheable_request(request) else None
            if key is None:
                return view(request, pk, *args, **kwargs)
            entry = cache.get(key)
            if _fresh(entry):
                return _answer(entry)
            versions = versions_current([(kind, pk)])  # read before the page is rendered
            setattr(request, _READ_FIRST, ((kind, pk), versions))
            response = view(request, pk, *args, **kwargs)
            if cacheable_response(request, response):
                versions |= getattr(response, SHOWN, {})
                entry = _stored(response, versions)
                cache.set(key, entry, PAGE_TIMEOUT)
                _validators(response, entry)
            return response

        return wrapped

    return decorator


def entry_records(work_ids: list[int]) -> list[Record]:
    """The records list entries of the works ``work_ids`` show: the works. An entry
    also names researchers and a venue, but whatever changes what it shows of them
    renews the work's version (``pages.receivers``), so no byline is read here."""
    return [("work", pk) for pk in work_ids]


# Pages shared by every visitor, with the parts drawn for each visitor left as slots
# (``pages.slots``).


def _as_anyone(request: HttpRequest) -> HttpRequest:
    """The request as an anonymous visitor without session, messages or CSRF token makes it."""
    visitor = copy.copy(request)
    visitor.user = AnonymousUser()
    visitor.META = {k: v for k, v in request.META.items() if not k.startswith("CSRF_COOKIE")}
    visitor.session = empty_session()
    visitor._messages = []
    return visitor


def empty_session():
    """A new, empty session of the site's session engine (a visitor without a cookie's)."""
    return import_module(settings.SESSION_ENGINE).SessionStore()


def _nothing_personal(visitor: HttpRequest) -> bool:
    """The page read nothing of its visitor: no session, no CSRF token."""
    return not visitor.session.accessed and "CSRF_COOKIE_NEEDS_UPDATE" not in visitor.META


SharedBuild = Callable[[HttpRequest, Slots], tuple[str, dict[str, str]]]


class SharedPage(NamedTuple):
    body: str
    nonce: str  # of the page's slots
    versions: dict[str, str]  # of every record it shows


def shared_page(kind: str, pk: int, request: HttpRequest, build: SharedBuild) -> SharedPage:
    """The record's page as anyone sees it, per-visitor parts left as slots.

    ``build(visitor, slots)`` renders it for an anonymous ``visitor`` and returns the
    body with the page versions of every record it shows, each read before the
    rows it shows (``versions_current`` adds ``NAMES``). Kept under those versions,
    for the page's address, query (``page_query``) and day; a body that used a
    session or a CSRF token, or a query the page does not read, is not kept; nor is a
    page drawn ahead of its visitors (``DRAWN_AHEAD``), which keeps it elsewhere.
    """
    return shared_kept(kind, pk, request) or shared_drawn(kind, pk, request, build)


def _shared_key(kind: str, pk: int, request: HttpRequest) -> str | None:
    ahead = getattr(request, DRAWN_AHEAD, False)
    key = page_key(kind, pk, request) if settings.PAGE_CACHE and not ahead else None
    return None if key is None else f"shared:{key}"


def shared_kept(kind: str, pk: int, request: HttpRequest) -> SharedPage | None:
    """The record's shared page as ``shared_page`` keeps it, or None where none is kept."""
    key = _shared_key(kind, pk, request)
    entry = cache.get(key) if key is not None else None
    if _fresh(entry):
        return SharedPage(entry["body"], entry["nonce"], entry["versions"])
    return None


def shared_drawn(kind: str, pk: int, request: HttpRequest, build: SharedBuild) -> SharedPage:
    """The record's shared page drawn now (``shared_page``), and kept where it may be."""
    key = _shared_key(kind, pk, request)
    slots, visitor = Slots(), _as_anyone(request)
    body, versions = build(visitor, slots)  # read NAMES with the page's other versions
    if key is not None and _nothing_personal(visitor):
        entry = {"versions": dict(versions), "body": body, "nonce": slots.nonce}
        cache.set(key, entry, PAGE_TIMEOUT)
    return SharedPage(body, slots.nonce, versions)

"""OpenAlex fetching with pyalex: pages of payloads, resumable from a cursor.

Fetching never touches the database: it yields ``Page`` objects whose
``next_cursor`` resumes the import exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

import pyalex
import requests
from pyalex.api import OpenAlexResponseList, QueryError

from catalogue.identifiers import (
    normalize_doi,
    normalize_orcid,
)
from ingestion.records import (
    Page,
    SourceError,
)
from ingestion.sources.bounds import json_loads
from ingestion.sources.openalex.entities import author_candidate
from ingestion.sources.openalex.values import (
    as_date,
    as_dict,
    as_int,
    as_line,
    as_list,
    as_text,
    distinct,
    short_id,
)

# Fetch knobs, read when a fetch starts (not at import) so tests can patch them.
PER_PAGE = 200
DOI_BATCH = 50  # OpenAlex ORs at most 100 values per filter; 50 keeps URLs short
AUTHOR_BATCH = 50
MAX_RETRIES = 5
RETRY_BACKOFF = 0.5
RETRY_HTTP_CODES = [429, 500, 502, 503, 504]


CURSOR_MAX = 2_000  # an OpenAlex paging cursor is opaque text of about a hundred characters
ERROR_MESSAGE_LIMIT = 300  # OpenAlex's 400 message lists every valid field (4 kB)


def configure() -> None:
    """Point pyalex at our settings; called when a fetch starts, never at import."""
    from django.conf import settings

    pyalex.config.email = getattr(settings, "OPENALEX_EMAIL", "") or None
    pyalex.config.api_key = getattr(settings, "OPENALEX_API_KEY", "") or None
    pyalex.config.max_retries = MAX_RETRIES
    pyalex.config.retry_backoff_factor = RETRY_BACKOFF
    pyalex.config.retry_http_codes = list(RETRY_HTTP_CODES)


def openalex_message(body: str) -> str:
    """OpenAlex's own explanation from a JSON error body ("" for HTML and the like)."""
    try:
        document = json_loads(body)
    except (TypeError, ValueError):  # nested too deeply is a ValueError too
        return ""
    document = as_dict(document)
    message = as_text(document.get("message"), 10_000) or as_text(document.get("error"), 10_000)
    if len(message) > ERROR_MESSAGE_LIMIT:
        message = message[:ERROR_MESSAGE_LIMIT].rstrip() + "…"
    return message


def source_error(status: int | None, body: str, what: str) -> SourceError:
    """A SourceError for an OpenAlex error answer about ``what`` ("author A1", "works …")."""
    message = openalex_message(body)
    code = f" (HTTP {status})" if status else ""
    if status == 404:
        text = f"OpenAlex has no {what}{code}"
    elif message:
        text = f"OpenAlex rejected the request for {what}{code}: {message}"
    else:
        text = f"OpenAlex answered with an error for {what}{code}"
    return SourceError(text, status=status, body=body)


def openalex_call(what: str, fetch: Callable[[], object]):
    """Run one pyalex request, turning every failure into a SourceError."""
    try:
        return fetch()
    except QueryError as exc:  # pyalex's own 400 (bad query) and 401 (API key)
        status = 401 if "API key" in str(exc) else 400
        raise source_error(status, json.dumps({"message": str(exc)}), what) from exc
    except requests.HTTPError as exc:
        response = exc.response
        if response is None:
            raise SourceError(f"OpenAlex request for {what} failed: {exc}") from exc
        raise source_error(response.status_code, response.text, what) from exc
    except requests.exceptions.RetryError as exc:
        raise _retries_exhausted(exc, what) from exc
    except requests.exceptions.JSONDecodeError as exc:
        raise SourceError(f"OpenAlex sent an answer that is not JSON for {what}") from exc
    except RecursionError as exc:  # the standard library's parser, on JSON nested too deeply
        raise SourceError(f"OpenAlex sent an answer nested too deeply for {what}") from exc
    except requests.RequestException as exc:
        raise SourceError(f"OpenAlex could not be reached for {what}: {exc}") from exc
    except (ValueError, KeyError) as exc:  # pyalex: "Unknown response format", odd 401 bodies
        raise SourceError(f"OpenAlex sent an unexpected answer for {what}: {exc}") from exc


def _retries_exhausted(exc: requests.exceptions.RetryError, what: str) -> SourceError:
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    text = str(reason or exc)
    match = re.search(r"too many (\d{3}) error", text)
    return SourceError(
        f"OpenAlex kept failing for {what} after {MAX_RETRIES} retries ({text})",
        status=int(match.group(1)) if match else None,
    )


def search_authors(name: str, limit: int = 10) -> list[dict]:
    """Authors whose name matches, with what tells namesakes apart."""
    query = as_line(name)
    if not query:
        return []
    limit = max(1, min(limit, 200))
    configure()
    results = openalex_call(
        f"authors named {query!r}", lambda: pyalex.Authors().search(query).get(per_page=limit)
    )
    return [author_candidate(dict(item)) for item in results][:limit]


# Steps of an import: ("author", lookup), ("author_works", None), ("works", filters),
# ("doi", doi). A cursor is {"step": index, "cursor": OpenAlex cursor or "*",
# "author_id": "A…" once known}: plain JSON, saved after each page.


def pages(kind: str, parameters: dict, cursor: object = None) -> Iterator[Page]:
    """Pages of an import; ``pages(kind, parameters, cursor=page.next_cursor)`` resumes."""
    steps = _steps(kind, parameters or {})
    state = _resume(cursor, steps)
    if state is not None:
        configure()
    while state is not None:
        page = _fetch(steps, state)
        yield page
        state = dict(page.next_cursor) if page.next_cursor is not None else None


def _steps(kind: str, parameters: dict) -> list[tuple[str, object]]:
    if kind == "author":
        author_id = short_id(parameters.get("id"), "A")
        if not author_id:
            raise ValueError(f"not an OpenAlex author id: {parameters.get('id')!r}")
        return [("author", author_id), ("author_works", None)]
    if kind == "orcid":
        orcid = normalize_orcid(parameters.get("orcid"))
        if not orcid:
            raise ValueError(f"not a valid ORCID iD: {parameters.get('orcid')!r}")
        return [("author", f"orcid:{orcid}"), ("author_works", None)]
    if kind == "dois":
        return _doi_steps(parameters.get("dois"))
    if kind == "filter":
        filters = parameters.get("filter")
        if not isinstance(filters, dict) or not filters:
            raise ValueError("a filter import needs a non-empty 'filter' dict")
        return [("works", dict(filters))]
    if kind == "refresh":
        return _refresh_steps(parameters)
    raise ValueError(f"unknown OpenAlex import kind: {kind!r}")


def _chunks(values: list, size: int) -> Iterator[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _doi_steps(raw: object) -> list[tuple[str, object]]:
    dois = distinct(normalize_doi(d) for d in as_list(raw) if isinstance(d, str))
    # "," separates filters and "|" ORs values even when URL-encoded: fetch those alone.
    alone = [d for d in dois if "," in d or "|" in d]
    batched = [d for d in dois if d not in alone]
    steps: list[tuple[str, object]] = [
        ("works", {"doi": "|".join(f"https://doi.org/{d}" for d in chunk)})
        for chunk in _chunks(batched, DOI_BATCH)
    ]
    return steps + [("doi", d) for d in alone]


def _refresh_steps(parameters: dict) -> list[tuple[str, object]]:
    """Works by these authors; with ``from_updated_date``, only those changed since then."""
    since = parameters.get("from_updated_date")
    if since and as_date(since) is None:
        raise ValueError(f"from_updated_date must be YYYY-MM-DD, not {since!r}")
    extra = {"from_updated_date": str(as_date(since))} if since else {}
    ids = distinct(short_id(a, "A") for a in as_list(parameters.get("author_ids")))
    return [
        ("works", {"author.id": "|".join(chunk), **extra}) for chunk in _chunks(ids, AUTHOR_BATCH)
    ]


def _resume(cursor: object, steps: list) -> dict | None:
    if cursor is None:
        return {"step": 0, "cursor": "*"} if steps else None
    if isinstance(cursor, str):
        try:
            cursor = json_loads(cursor)
        except ValueError:
            cursor = None
    state = as_dict(cursor)
    step = as_int(state.get("step"))
    valid = step is not None and 0 <= step < len(steps) and as_text(state.get("cursor"), CURSOR_MAX)
    if valid and steps[step][0] == "author_works":
        valid = short_id(state.get("author_id"), "A") is not None
    if not valid:
        raise ValueError(f"not a cursor of this OpenAlex import: {cursor!r}")
    return dict(state)


def _next_step(state: dict, steps: list, author_id: str | None = None) -> dict | None:
    index = state["step"] + 1
    if index >= len(steps):
        return None
    following = {"step": index, "cursor": "*"}
    if author_id or state.get("author_id"):
        following["author_id"] = author_id or state["author_id"]
    return following


def _fetch(steps: list, state: dict) -> Page:
    action, argument = steps[state["step"]]
    if action == "author":
        return _author_page(argument, state, steps)
    if action == "doi":
        return _doi_page(argument, state, steps)
    if action == "author_works":
        author_id = state["author_id"]
        return _works_page({"author.id": author_id}, f"works of author {author_id}", state, steps)
    return _works_page(argument, f"works filtered by {argument}", state, steps)


def _author_page(lookup: str, state: dict, steps: list) -> Page:
    what = f"author {lookup}"
    author = dict(openalex_call(what, lambda: pyalex.Authors()[lookup]))
    author_id = short_id(author.get("id"), "A")
    if not author_id:
        raise SourceError(f"OpenAlex answered {what} without an author id", body=json.dumps(author))
    return Page(entity="author", payloads=[author], next_cursor=_next_step(state, steps, author_id))


def _doi_page(doi: str, state: dict, steps: list) -> Page:
    try:
        work = dict(openalex_call(f"work {doi}", lambda: pyalex.Works()[f"https://doi.org/{doi}"]))
    except SourceError as exc:
        if exc.status != 404:
            raise
        work = None  # an unknown DOI is an empty answer, not a failed import
    payloads = [work] if work else []
    return Page("work", payloads, _next_step(state, steps), total=len(payloads))


def _works_page(filters: dict, what: str, state: dict, steps: list) -> Page:
    position = state["cursor"]
    results = openalex_call(
        what, lambda: pyalex.Works().filter(**filters).get(per_page=PER_PAGE, cursor=position)
    )
    if not isinstance(results, OpenAlexResponseList):
        raise SourceError(f"OpenAlex answered {what} with a single record instead of a list")
    payloads = [dict(item) for item in results]
    meta = as_dict(results.meta)
    following = as_text(meta.get("next_cursor"), CURSOR_MAX)
    # A short page is the last one: skip the request that would return [] and no cursor.
    if following and len(payloads) >= PER_PAGE:
        next_cursor = {**state, "cursor": following}
    else:
        next_cursor = _next_step(state, steps)
    return Page("work", payloads, next_cursor, total=as_int(meta.get("count")))

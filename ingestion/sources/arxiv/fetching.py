"""Live paging through the arXiv API with the ``arxiv`` package."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import date

import arxiv
import requests
from requests.adapters import HTTPAdapter

from catalogue.identifiers import normalize_arxiv_id
from ingestion.records import Page, SourceError
from ingestion.sources.arxiv.feed import (
    OPENSEARCH,
    as_int,
    error_message,
    feed_root,
    result_to_payload,
)
from ingestion.sources.arxiv.mapping import SOURCE

# Live fetching. Module constants so that tests (and a careful operator) can change them;
# arXiv's terms of use ask for no more than one request every three seconds.
PAGE_SIZE = 100
DELAY_SECONDS = 3.0
NUM_RETRIES = 3
# arxiv.Client sends requests without a timeout; a stalled connection would hang a worker.
TIMEOUT_SECONDS = 60.0


def client() -> arxiv.Client:
    return arxiv.Client(page_size=PAGE_SIZE, delay_seconds=DELAY_SECONDS, num_retries=NUM_RETRIES)


def build_search(kind: str, parameters: dict) -> arxiv.Search:
    """An arxiv.Search for one import kind: "query", "ids" or "category"."""
    # Oldest first: new submissions land at the end, so a saved offset stays valid.
    stable = {"sort_by": arxiv.SortCriterion.SubmittedDate, "sort_order": arxiv.SortOrder.Ascending}
    if kind == "query":
        return arxiv.Search(query=_required(parameters, "query"), max_results=None, **stable)
    if kind == "ids":
        ids = [str(i).strip() for i in parameters.get("ids") or [] if str(i).strip()]
        if not ids:
            raise ValueError('an arXiv "ids" import needs a non-empty "ids" list')
        return arxiv.Search(id_list=ids, max_results=None)
    if kind == "category":
        return arxiv.Search(query=_category_query(parameters), max_results=None, **stable)
    raise ValueError(f'unknown arXiv import kind {kind!r} (use "query", "ids" or "category")')


def _category_query(parameters: dict) -> str:
    query = f"cat:{_required(parameters, 'category')}"
    if not parameters.get("from") and not parameters.get("to"):
        return query
    first = _day(parameters, "from").strftime("%Y%m%d")
    last = _day(parameters, "to").strftime("%Y%m%d")
    return f"{query} AND submittedDate:[{first}0000 TO {last}2359]"


def _day(parameters: dict, key: str) -> date:
    try:
        return date.fromisoformat(str(parameters.get(key) or ""))
    except ValueError as err:
        raise ValueError(f'"{key}" must be a YYYY-MM-DD date, not {parameters.get(key)!r}') from err


def _required(parameters: dict, key: str) -> str:
    value = str(parameters.get(key) or "").strip()
    if not value:
        raise ValueError(f'an arXiv import needs "{key}"')
    return value


def pages(kind: str, parameters: dict, cursor: object = None) -> Iterator[Page | SourceError]:
    """Yield pages of payloads; ``cursor`` is how many entries earlier pages already gave.

    Each page's ``next_cursor`` is the offset to resume from, or None on the last page.
    An "ids" import read from its start ends with a SourceError for each id that
    was asked for and that arXiv did not return (arXiv leaves out an id it does
    not hold without a word), so the run records a problem naming it.
    """
    offset = _offset(cursor)
    search = build_search(kind, parameters)
    fetcher = client()
    exchange = _instrument(fetcher)
    results = fetcher.results(search, offset=offset)
    # Resumed past its start, a run cannot know the ids the pages before gave.
    asked = search.id_list if kind == "ids" and offset == 0 else []
    returned: set[str] = set()
    while True:
        payloads = [result_to_payload(result) for result in _take(results, exchange)]
        returned.update(payload["arxiv_id"] for payload in payloads)
        offset += len(payloads)
        total = exchange.total
        done = len(payloads) < PAGE_SIZE or (total is not None and offset >= total)
        yield Page(
            entity=SOURCE, payloads=payloads, next_cursor=None if done else offset, total=total
        )
        if done:
            yield from missing_ids(asked, returned)
            return


def missing_ids(asked: list[str], returned: set[str]) -> Iterator[SourceError]:
    """A SourceError for each id of ``asked`` none of the ``returned`` arXiv ids answers."""
    for ident in dict.fromkeys(asked):
        if (normalize_arxiv_id(ident) or ident) not in returned:
            yield SourceError(
                f"arXiv returned no record for the id {ident} that was asked for",
                external_id=ident,
            )


def _offset(cursor: object) -> int:
    try:
        offset = int(cursor or 0)
    except (TypeError, ValueError) as err:
        raise ValueError(f"an arXiv cursor is an entry count, not {cursor!r}") from err
    if offset < 0:
        raise ValueError(f"an arXiv cursor cannot be negative ({offset})")
    return offset


def _take(results: Iterator[arxiv.Result], exchange: _Exchange) -> list[arxiv.Result]:
    """The next PAGE_SIZE results, with the arxiv package's errors turned into SourceError."""
    try:
        return list(itertools.islice(results, PAGE_SIZE))
    except arxiv.HTTPError as err:
        raise SourceError(
            f"arXiv answered HTTP {err.status} after {err.retry + 1} tries ({err.url})",
            status=err.status,
            body=exchange.body,
        ) from err
    except arxiv.UnexpectedEmptyPageError as err:
        raise SourceError(
            f"arXiv sent an empty page in the middle of the results ({err.url})", status=200
        ) from err
    except arxiv.ArxivError as err:
        raise SourceError(f"arXiv request failed: {err}", body=exchange.body) from err
    except requests.RequestException as err:
        raise SourceError(f"arXiv could not be reached: {err}") from err


class _Exchange:
    """A response hook on the client's session that remembers what arxiv.Client drops.

    arxiv.Client keeps neither the opensearch total nor an error's body, and it retries
    every non-200 answer. A 4xx (other than 429) means the query itself is wrong, so the
    hook raises at once (the client only retries its own exception types) with arXiv's
    explanation instead of waiting through the retries.
    """

    def __init__(self) -> None:
        self.total: int | None = None
        self.body = ""

    def __call__(self, response: requests.Response, *args, **kwargs) -> requests.Response:
        if response.status_code == 200:
            self.body = ""
            if self.total is None:
                self.total = _total(response.content)
            return response
        self.body = response.text
        if 400 <= response.status_code < 500 and response.status_code != 429:
            raise _refusal(response)
        return response


def _total(content: bytes) -> int | None:
    try:
        root = feed_root(content)
    except SourceError:
        return None  # the client's own parser decides what to make of a broken page
    return as_int(root.findtext(f"{{{OPENSEARCH}}}totalResults"))


def _refusal(response: requests.Response) -> SourceError:
    try:
        message = error_message(feed_root(response.content))
    except SourceError:
        message = ""
    text = f"arXiv refused the query: {message}" if message else "arXiv refused the query"
    return SourceError(
        f"{text} (HTTP {response.status_code})", status=response.status_code, body=response.text
    )


class _TimeoutAdapter(HTTPAdapter):
    def send(self, request, **kwargs):
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = TIMEOUT_SECONDS
        return super().send(request, **kwargs)


def _instrument(fetcher: arxiv.Client) -> _Exchange:
    """Attach the response hook and a timeout to the client's private requests session."""
    exchange = _Exchange()
    session = getattr(fetcher, "_session", None)
    if isinstance(session, requests.Session):
        session.hooks["response"].append(exchange)
        session.mount("https://", _TimeoutAdapter())
        session.mount("http://", _TimeoutAdapter())
    return exchange

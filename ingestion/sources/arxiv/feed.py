"""arXiv Atom feeds and ``arxiv.Result`` objects to payload dicts.

Two roads lead to the same payload dict (the stored SourceRecord payload):
``parse_feed`` reads a recorded or downloaded Atom feed with lxml, and
``result_to_payload`` converts the ``arxiv.Result`` objects that the ``arxiv``
package yields during a live import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import arxiv
from lxml import etree

from catalogue.identifiers import normalize_arxiv_id
from ingestion.records import SourceError
from ingestion.sources.common import parse_datetime

ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV = "http://arxiv.org/schemas/atom"


@dataclass(slots=True)
class Feed:
    """One Atom feed: entry payloads plus the opensearch paging header."""

    entries: list[dict] = field(default_factory=list)
    total: int | None = None
    start: int | None = None
    per_page: int | None = None


def parse_feed(data: bytes | str) -> Feed:
    """Parse an arXiv API Atom feed (2016/2019 legacy or current layout) into payload dicts.

    Raises SourceError for arXiv's error feed and for anything that is not an Atom feed.
    """
    root = feed_root(data)
    message = error_message(root)
    if message:
        raise SourceError(f"arXiv refused the query: {message}", body=_as_text(data))
    return Feed(
        entries=[_entry_payload(entry) for entry in root.iterfind(f"{{{ATOM}}}entry")],
        total=as_int(root.findtext(f"{{{OPENSEARCH}}}totalResults")),
        start=as_int(root.findtext(f"{{{OPENSEARCH}}}startIndex")),
        per_page=as_int(root.findtext(f"{{{OPENSEARCH}}}itemsPerPage")),
    )


def feed_root(data: bytes | str) -> etree._Element:
    # lxml refuses str input that carries an encoding declaration, so always hand it bytes.
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(raw, parser=parser)
    except etree.XMLSyntaxError as err:
        raise SourceError(f"not an Atom feed: {err}", body=_as_text(raw)) from err
    if root.tag != f"{{{ATOM}}}feed":
        raise SourceError(f"not an Atom feed: the root element is {root.tag}", body=_as_text(raw))
    return root


def error_message(root: etree._Element) -> str:
    """The summary of arXiv's error entry, or "" when the feed carries results.

    The id is the tell: a paper may well be titled "Error", but only errors live under
    arxiv.org/api/errors.
    """
    for entry in root.iterfind(f"{{{ATOM}}}entry"):
        if "/api/errors" in (entry.findtext(f"{{{ATOM}}}id") or ""):
            summary = " ".join((entry.findtext(f"{{{ATOM}}}summary") or "").split())
            return summary or "unspecified error"
    return ""


def _entry_payload(entry: etree._Element) -> dict:
    # Clark-notation lookups find an element whether its namespace was declared on the root
    # (current layout) or inline on the element itself (legacy layout), in any order.
    return _payload(
        entry_id=_child_text(entry, ATOM, "id"),
        title=_child_text(entry, ATOM, "title"),
        summary=_child_text(entry, ATOM, "summary"),
        authors=[
            (
                _child_text(author, ATOM, "name"),
                [_text(aff) for aff in author.iterfind(f"{{{ARXIV}}}affiliation")],
            )
            for author in entry.iterfind(f"{{{ATOM}}}author")
        ],
        published=_child_text(entry, ATOM, "published"),
        updated=_child_text(entry, ATOM, "updated"),
        comment=_child_text(entry, ARXIV, "comment"),
        journal_ref=_child_text(entry, ARXIV, "journal_ref"),
        doi=_child_text(entry, ARXIV, "doi"),
        primary_category=_attribute(entry.find(f"{{{ARXIV}}}primary_category"), "term"),
        categories=[c.get("term") for c in entry.iterfind(f"{{{ATOM}}}category")],
        links=[
            (link.get("href"), link.get("rel"), link.get("type"), link.get("title"))
            for link in entry.iterfind(f"{{{ATOM}}}link")
        ],
    )


def result_to_payload(result: arxiv.Result) -> dict:
    """The payload for a live ``arxiv.Result``: the same shape and values as ``parse_feed``."""
    return _payload(
        entry_id=result.entry_id,
        title=result.title,
        summary=result.summary,
        authors=[(author.name, _affiliations(author)) for author in result.authors],
        published=result.published,
        updated=result.updated,
        comment=result.comment,
        journal_ref=result.journal_ref,
        doi=result.doi,
        primary_category=result.primary_category,
        categories=result.categories,
        links=[(link.href, link.rel, link.content_type, link.title) for link in result.links or []],
    )


def _affiliations(author: arxiv.Result.Author) -> list[str]:
    # arxiv 4.x gives a list of strings; older releases had no such attribute at all.
    value = getattr(author, "affiliation", None) or []
    return [value] if isinstance(value, str) else list(value)


def _payload(
    *,
    entry_id: str | None,
    title: str | None,
    summary: str | None,
    authors: Iterable[tuple[str | None, Iterable[str | None]]],
    published: str | datetime | None,
    updated: str | datetime | None,
    comment: str | None,
    journal_ref: str | None,
    doi: str | None,
    primary_category: str | None,
    categories: Iterable[str | None],
    links: Iterable[tuple[str | None, str | None, str | None, str | None]],
) -> dict:
    """The one place that decides the payload shape, so both roads stay identical."""
    entry_id = stripped(entry_id)
    return {
        "id": entry_id,
        "arxiv_id": normalize_arxiv_id(entry_id) or "",
        "version": _version(entry_id),
        # Feeds wrap long titles ("...presence\n  of quenched..."); the words are what count.
        "title": " ".join((title or "").split()),
        "summary": stripped(summary),
        "authors": [
            {"name": stripped(name), "affiliations": [stripped(a) for a in affs if stripped(a)]}
            for name, affs in authors
        ],
        "published": _iso(published),
        "updated": _iso(updated),
        "comment": stripped(comment),
        "journal_ref": stripped(journal_ref),
        "doi": stripped(doi),
        "primary_category": stripped(primary_category),
        "categories": [stripped(c) for c in categories if stripped(c)],
        "links": [
            {"href": stripped(href), "rel": rel or "", "type": kind or "", "title": title or ""}
            for href, rel, kind, title in links
            if stripped(href)
        ],
    }


_VERSION_RE = re.compile(r"(v\d+)$")


def _version(entry_id: str) -> str:
    match = _VERSION_RE.search(entry_id)
    return match.group(1) if match else ""


def _iso(value: str | datetime | None) -> str:
    """An ISO 8601 UTC timestamp; text that is not a timestamp is kept as sent."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        parsed = _parse_datetime(value)
        if parsed is None:
            return value.strip()
        value = parsed
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat()


def _parse_datetime(value: str | None) -> datetime | None:
    return parse_datetime(value)


def _child_text(element: etree._Element, namespace: str, tag: str) -> str:
    return _text(element.find(f"{{{namespace}}}{tag}"))


def _text(element: etree._Element | None) -> str:
    return "".join(element.itertext()) if element is not None else ""


def _attribute(element: etree._Element | None, name: str) -> str:
    return (element.get(name) or "") if element is not None else ""


def stripped(value: str | None) -> str:
    return (value or "").strip()


def as_int(value: str | None) -> int | None:
    try:
        return int(value.strip()) if value else None
    except ValueError:
        return None


def _as_text(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")

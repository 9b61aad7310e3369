"""arXiv payload dicts to WorkRecords; never touches the database."""

from __future__ import annotations

import re

from publications.identifiers import normalize_arxiv_id, normalize_doi
from publications.records import AuthorRef, MappingError, TopicRef, WorkRecord
from publications.sources.arxiv.categories import CATEGORY_NAMES
from publications.sources.arxiv.feed import stripped
from publications.sources.code_links import extract_code_url
from publications.sources.common import parse_datetime
from publications.text import (
    ABSTRACT_MAX,
    AFFILIATION_MAX,
    COMMENTS_MAX,
    NAME_MAX,
    PLACE_MAX,
    TITLE_MAX,
    bounded,
    clean,
    clean_abstract,
    clean_line,
    kept_url,
    window,
)

SOURCE = "arxiv"
WORK_TYPE = "preprint"  # publications.models.Work.Type.PREPRINT (kept literal: no Django import)
TOPIC_KIND = "arxiv"  # publications.models.Topic.Kind.ARXIV


def map_entry(payload: dict) -> WorkRecord:
    """Map one arXiv payload (from parse_feed or result_to_payload) to a WorkRecord."""
    if not isinstance(payload, dict):
        raise MappingError(f"an arXiv payload must be a dict, not {type(payload).__name__}")
    arxiv_id = _arxiv_id(payload)
    check_entry_shape(payload, arxiv_id)
    title = clean_line(payload.get("title"), TITLE_MAX)
    if not title:
        raise MappingError(f"arXiv entry {arxiv_id} has no title")
    published = parse_datetime(payload.get("published"))
    abstract = _abstract(payload.get("summary"))
    comments = clean_line(payload.get("comment"), COMMENTS_MAX)
    links = [link for link in payload.get("links") or [] if isinstance(link, dict)]
    dropped: dict[str, str] = {}
    primary = _category(payload.get("primary_category"))
    categories = payload.get("categories") or []
    # arXiv lists the primary category first; use that if the primary element is missing.
    categories = [c for c in map(_category, categories) if c]
    primary = primary or (categories[0] if categories else "")
    return WorkRecord(
        source=SOURCE,
        external_id=arxiv_id,
        arxiv_id=arxiv_id,
        title=title,
        abstract=abstract,
        type=WORK_TYPE,
        publication_date=published.date() if published else None,
        publication_year=published.year if published else None,
        updated_at=parse_datetime(payload.get("updated")),
        doi=normalize_doi(payload.get("doi")),
        journal_ref=clean_line(payload.get("journal_ref"), PLACE_MAX),
        arxiv_primary_category=primary,
        comments=comments,
        code_url=extract_code_url(comments) or extract_code_url(abstract),
        pdf_url=kept_url(dropped, "pdf_url", _pdf_url(links)),
        landing_url=kept_url(dropped, "landing_url", _landing_url(links, arxiv_id))
        or f"https://arxiv.org/abs/{arxiv_id}",
        is_open_access=True,  # every arXiv paper can be read without paying
        authors=_authors(payload.get("authors") or []),
        topics=_topics(primary, categories),
        dropped=dropped,
    )


def check_entry_shape(payload: dict, arxiv_id: str) -> None:
    """Refuse an entry whose fields hold the wrong kind of value (see ``sources.shapes``)."""
    wrong = [
        name
        for name in ("title", "summary", "comment", "journal_ref", "doi", "primary_category")
        if payload.get(name) is not None and not isinstance(payload[name], str)
    ]
    for name in ("authors", "links", "categories"):
        items = payload.get(name)
        if items is not None and not isinstance(items, list):
            wrong.append(name)
    authors = payload.get("authors") if isinstance(payload.get("authors"), list) else []
    if any(not isinstance(a, dict) or not isinstance(a.get("name", ""), str) for a in authors):
        wrong.append("authors (each an object with a name)")
    if wrong:
        raise MappingError(
            f"arXiv entry {arxiv_id} has values of the wrong type: {', '.join(wrong)}"
        )


def _arxiv_id(payload: dict) -> str:
    raw = payload.get("arxiv_id") or payload.get("id")
    if not raw:
        raise MappingError("arXiv entry has no id")
    arxiv_id = normalize_arxiv_id(raw) or normalize_arxiv_id(payload.get("id"))
    if not arxiv_id:
        raise MappingError(f"arXiv entry id {raw!r} is not an arXiv identifier")
    return arxiv_id


# In arXiv abstracts a line break is a soft wrap, and a line that starts with white space
# starts a new paragraph (that is how arXiv's own abstract pages render them).
_PARAGRAPH_START = re.compile(r"\n[ \t]+(?=\S)")
_SOFT_WRAP = re.compile(r"(?<!\n)\n(?!\n)")


def _abstract(summary: str | None) -> str:
    text = _PARAGRAPH_START.sub("\n\n", clean(window(stripped(summary), ABSTRACT_MAX)))
    return clean_abstract(_SOFT_WRAP.sub(" ", text), ABSTRACT_MAX)


def _authors(authors: list[dict]) -> list[AuthorRef]:
    refs: list[AuthorRef] = []
    for author in authors:
        name = clean_line(author.get("name"), NAME_MAX)
        if not name:
            continue  # a nameless author cannot be resolved; keep positions dense
        affiliations = [
            clean_line(a, AFFILIATION_MAX) for a in _strings(author.get("affiliations"))
        ]
        refs.append(
            AuthorRef(
                position=len(refs),
                name=name,
                raw_name=clean_line(author.get("name"), PLACE_MAX),
                raw_affiliation=bounded("; ".join(a for a in affiliations if a), AFFILIATION_MAX),
            )
        )
    return refs


def _category(value: object) -> str:
    """A category code as a topic key can hold it (codes are a few ASCII characters)."""
    return clean_line(value, 32)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _topics(primary: str, categories: list[str]) -> list[TopicRef]:
    codes = list(dict.fromkeys(code for code in [primary, *categories] if code))
    return [
        TopicRef(
            key=f"arxiv:{code}",
            name=category_name(code),
            kind=TOPIC_KIND,
            is_primary=code == primary,
        )
        for code in codes
    ]


def category_name(code: str) -> str:
    """arXiv's readable name for a category code; unknown codes stand for themselves."""
    return CATEGORY_NAMES.get(code, code)


def _pdf_url(links: list[dict]) -> str:
    for link in links:
        if link.get("title") == "pdf" or link.get("type") == "application/pdf":
            return _https(link.get("href") or "")
    return ""


def _landing_url(links: list[dict], arxiv_id: str) -> str:
    for link in links:
        if link.get("rel") == "alternate" and link.get("href"):
            return _https(link["href"])
    return f"https://arxiv.org/abs/{arxiv_id}"


def _https(url: object) -> str:
    # Legacy feeds still say http://arxiv.org; arXiv serves https and pages must not mix.
    if not isinstance(url, str):
        return ""
    return re.sub(r"^http://(export\.)?arxiv\.org/", "https://arxiv.org/", url.strip())

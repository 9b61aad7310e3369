"""arXiv payload dicts to WorkRecords; never touches the database."""

from __future__ import annotations

import re
from datetime import date

from catalogue.dates import DAY
from catalogue.identifiers import normalize_arxiv_id, normalize_doi
from catalogue.links import kept_url
from catalogue.text import (
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
    window,
)
from ingestion.records import AuthorRef, MappingError, TopicRef, WorkRecord
from ingestion.sources.arxiv.categories import CATEGORY_NAMES
from ingestion.sources.arxiv.feed import stripped
from ingestion.sources.code_links import extract_code_url
from ingestion.sources.common import parse_datetime

SOURCE = "arxiv"
WORK_TYPE = "preprint"  # catalogue.models.Work.Type.PREPRINT (kept literal: no Django import)
TOPIC_KIND = "arxiv"  # catalogue.models.Topic.Kind.ARXIV


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
    primary, categories = _categories(payload, dropped)
    journal_ref = clean_line(payload.get("journal_ref"), PLACE_MAX)
    return WorkRecord(
        source=SOURCE,
        external_id=arxiv_id,
        arxiv_id=arxiv_id,
        title=title,
        abstract=abstract,
        type=WORK_TYPE,
        # The first version's submission: the work's date unless a version of record
        # dates it (journal_year), and arXiv's "created" either way.
        publication_date=published.date() if published else None,
        date_precision=DAY,
        publication_year=published.year if published else None,
        created_date=published.date() if published else None,
        updated_at=parse_datetime(payload.get("updated")),
        journal_year=journal_year(journal_ref),
        doi=normalize_doi(payload.get("doi")),
        journal_ref=journal_ref,
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


# arXiv's taxonomy: an archive ("hep-th", "astro-ph"), or one with its subject class
# ("cs.LG", "cond-mat.str-el"). Feeds list MSC ("53C", "05E10") and ACM ("F.2.2") classes
# among the categories too; those are the authors' classes, not arXiv's categories.
_ARXIV_CATEGORY = re.compile(r"^[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[a-z]+)*)?$")
_MSC_CLASS = re.compile(r"^\d\d(?:[A-Z-](?:\d\d|xx)?|xx)?$")
_ACM_CLASS = re.compile(r"^[A-K]\.(?:\d+|m)(?:\.(?:\d+|m))?$")


def _categories(payload: dict, dropped: dict[str, str]) -> tuple[str, list[str]]:
    """The primary category and all of arXiv's categories; other classes noted as dropped."""
    given = [code for code in map(_category, payload.get("categories") or []) if code]
    categories = [code for code in given if is_arxiv_category(code)]
    # arXiv lists the primary category first; use that if the primary element is missing.
    primary = _category(payload.get("primary_category"))
    if not is_arxiv_category(primary):
        primary = categories[0] if categories else ""
    if others := [code for code in given if not is_arxiv_category(code)]:
        dropped["categories"] = _classes_note(others)
    return primary, categories


def is_arxiv_category(code: str) -> bool:
    return code in CATEGORY_NAMES or bool(_ARXIV_CATEGORY.match(code))


def _classes_note(codes: list[str]) -> str:
    msc = [code for code in codes if _MSC_CLASS.match(code)]
    acm = [code for code in codes if _ACM_CLASS.match(code)]
    other = [code for code in codes if code not in msc and code not in acm]
    kinds = [("MSC classes", msc), ("ACM classes", acm), ("other codes", other)]
    named = "; ".join(f"{kind} {', '.join(found)}" for kind, found in kinds if found)
    return f"not arXiv categories, so not kept as topics: {named}"


# A year in a journal reference: four digits standing alone, not part of a page range.
_YEAR = re.compile(r"(?<![\w-])(1[89]\d\d|20\d\d)(?![\w-])")
_YEAR_IN_PARENTHESES = re.compile(r"\(\s*(?:[A-Za-z]+\.?\s+)?(1[89]\d\d|20\d\d)\s*\)")


def journal_year(journal_ref: str) -> int | None:
    """The year the version of record was published, as the journal reference names it.

    "Phys. Rev. B 85, 115117 (2012)", "Astrophys.J.517:565-586,1999", "ICSTW 2023, pp.
    66-69": a year in parentheses first, else the last year standing alone. Numbers
    joined to others by a hyphen are pages ("1995-2001"), never a year.
    """
    latest = date.today().year + 1
    for pattern in (_YEAR_IN_PARENTHESES, _YEAR):
        years = [int(found) for found in pattern.findall(journal_ref or "")]
        years = [year for year in years if year <= latest]
        if years:
            return years[-1]
    return None


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

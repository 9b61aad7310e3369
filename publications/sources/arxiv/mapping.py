"""arXiv: Atom feeds to payload dicts, payload dicts to WorkRecords, live paging.

Two roads lead to the same payload dict (the stored SourceRecord payload):
``parse_feed`` reads a recorded or downloaded Atom feed with lxml, and
``result_to_payload`` converts the ``arxiv.Result`` objects that the ``arxiv``
package yields during a live import. ``map_entry`` turns either into a
``WorkRecord`` and never touches the database.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import arxiv
import requests
from lxml import etree
from requests.adapters import HTTPAdapter

from publications.identifiers import normalize_arxiv_id, normalize_doi
from publications.records import AuthorRef, MappingError, Page, SourceError, TopicRef, WorkRecord
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
)

ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV = "http://arxiv.org/schemas/atom"

# Live fetching. Module constants so that tests (and a careful operator) can change them;
# arXiv's terms of use ask for no more than one request every three seconds.
PAGE_SIZE = 100
DELAY_SECONDS = 3.0
NUM_RETRIES = 3
# arxiv.Client sends requests without a timeout; a stalled connection would hang a worker.
TIMEOUT_SECONDS = 60.0

SOURCE = "arxiv"
WORK_TYPE = "preprint"  # publications.models.Work.Type.PREPRINT (kept literal: no Django import)
TOPIC_KIND = "arxiv"  # publications.models.Topic.Kind.ARXIV


@dataclass(slots=True)
class Feed:
    """One Atom feed: entry payloads plus the opensearch paging header."""

    entries: list[dict] = field(default_factory=list)
    total: int | None = None
    start: int | None = None
    per_page: int | None = None


# --- Atom feed -> payloads -------------------------------------------------------------------


def parse_feed(data: bytes | str) -> Feed:
    """Parse an arXiv API Atom feed (2016/2019 legacy or current layout) into payload dicts.

    Raises SourceError for arXiv's error feed and for anything that is not an Atom feed.
    """
    root = _feed_root(data)
    message = _error_message(root)
    if message:
        raise SourceError(f"arXiv refused the query: {message}", body=_as_text(data))
    return Feed(
        entries=[_entry_payload(entry) for entry in root.iterfind(f"{{{ATOM}}}entry")],
        total=_int(root.findtext(f"{{{OPENSEARCH}}}totalResults")),
        start=_int(root.findtext(f"{{{OPENSEARCH}}}startIndex")),
        per_page=_int(root.findtext(f"{{{OPENSEARCH}}}itemsPerPage")),
    )


def _feed_root(data: bytes | str) -> etree._Element:
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


def _error_message(root: etree._Element) -> str:
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
    entry_id = _clean(entry_id)
    return {
        "id": entry_id,
        "arxiv_id": normalize_arxiv_id(entry_id) or "",
        "version": _version(entry_id),
        # Feeds wrap long titles ("...presence\n  of quenched..."); the words are what count.
        "title": " ".join((title or "").split()),
        "summary": _clean(summary),
        "authors": [
            {"name": _clean(name), "affiliations": [_clean(a) for a in affs if _clean(a)]}
            for name, affs in authors
        ],
        "published": _iso(published),
        "updated": _iso(updated),
        "comment": _clean(comment),
        "journal_ref": _clean(journal_ref),
        "doi": _clean(doi),
        "primary_category": _clean(primary_category),
        "categories": [_clean(c) for c in categories if _clean(c)],
        "links": [
            {"href": _clean(href), "rel": rel or "", "type": kind or "", "title": title or ""}
            for href, rel, kind, title in links
            if _clean(href)
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


def _clean(value: str | None) -> str:
    return (value or "").strip()


def _int(value: str | None) -> int | None:
    try:
        return int(value.strip()) if value else None
    except ValueError:
        return None


def _as_text(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


# --- payload -> WorkRecord -------------------------------------------------------------------


def map_entry(payload: dict) -> WorkRecord:
    """Map one arXiv payload (from parse_feed or result_to_payload) to a WorkRecord."""
    if not isinstance(payload, dict):
        raise MappingError(f"an arXiv payload must be a dict, not {type(payload).__name__}")
    arxiv_id = _arxiv_id(payload)
    check_entry_shape(payload, arxiv_id)
    title = clean_line(payload.get("title"), TITLE_MAX)
    if not title:
        raise MappingError(f"arXiv entry {arxiv_id} has no title")
    published = _parse_datetime(payload.get("published"))
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
        updated_at=_parse_datetime(payload.get("updated")),
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
    text = _PARAGRAPH_START.sub("\n\n", clean(_clean(summary)[: ABSTRACT_MAX * 20]))
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
    return clean(value).strip()[:32]


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


# --- live fetching ---------------------------------------------------------------------------


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


def pages(kind: str, parameters: dict, cursor: object = None) -> Iterator[Page]:
    """Yield pages of payloads; ``cursor`` is how many entries earlier pages already gave.

    Each page's ``next_cursor`` is the offset to resume from, or None on the last page.
    """
    offset = _offset(cursor)
    search = build_search(kind, parameters)
    fetcher = client()
    exchange = _instrument(fetcher)
    results = fetcher.results(search, offset=offset)
    while True:
        payloads = [result_to_payload(result) for result in _take(results, exchange)]
        offset += len(payloads)
        total = exchange.total
        done = len(payloads) < PAGE_SIZE or (total is not None and offset >= total)
        yield Page(
            entity=SOURCE, payloads=payloads, next_cursor=None if done else offset, total=total
        )
        if done:
            return


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
        root = _feed_root(content)
    except SourceError:
        return None  # the client's own parser decides what to make of a broken page
    return _int(root.findtext(f"{{{OPENSEARCH}}}totalResults"))


def _refusal(response: requests.Response) -> SourceError:
    try:
        message = _error_message(_feed_root(response.content))
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


# --- category names (https://arxiv.org/category_taxonomy) ------------------------------------

CATEGORY_NAMES: dict[str, str] = {
    # Computer Science
    "cs.AI": "Artificial Intelligence",
    "cs.AR": "Hardware Architecture",
    "cs.CC": "Computational Complexity",
    "cs.CE": "Computational Engineering, Finance, and Science",
    "cs.CG": "Computational Geometry",
    "cs.CL": "Computation and Language",
    "cs.CR": "Cryptography and Security",
    "cs.CV": "Computer Vision and Pattern Recognition",
    "cs.CY": "Computers and Society",
    "cs.DB": "Databases",
    "cs.DC": "Distributed, Parallel, and Cluster Computing",
    "cs.DL": "Digital Libraries",
    "cs.DM": "Discrete Mathematics",
    "cs.DS": "Data Structures and Algorithms",
    "cs.ET": "Emerging Technologies",
    "cs.FL": "Formal Languages and Automata Theory",
    "cs.GL": "General Literature",
    "cs.GR": "Graphics",
    "cs.GT": "Computer Science and Game Theory",
    "cs.HC": "Human-Computer Interaction",
    "cs.IR": "Information Retrieval",
    "cs.IT": "Information Theory",
    "cs.LG": "Machine Learning",
    "cs.LO": "Logic in Computer Science",
    "cs.MA": "Multiagent Systems",
    "cs.MM": "Multimedia",
    "cs.MS": "Mathematical Software",
    "cs.NA": "Numerical Analysis",
    "cs.NE": "Neural and Evolutionary Computing",
    "cs.NI": "Networking and Internet Architecture",
    "cs.OH": "Other Computer Science",
    "cs.OS": "Operating Systems",
    "cs.PF": "Performance",
    "cs.PL": "Programming Languages",
    "cs.RO": "Robotics",
    "cs.SC": "Symbolic Computation",
    "cs.SD": "Sound",
    "cs.SE": "Software Engineering",
    "cs.SI": "Social and Information Networks",
    "cs.SY": "Systems and Control",
    # Economics
    "econ.EM": "Econometrics",
    "econ.GN": "General Economics",
    "econ.TH": "Theoretical Economics",
    # Electrical Engineering and Systems Science
    "eess.AS": "Audio and Speech Processing",
    "eess.IV": "Image and Video Processing",
    "eess.SP": "Signal Processing",
    "eess.SY": "Systems and Control",
    # Mathematics
    "math.AC": "Commutative Algebra",
    "math.AG": "Algebraic Geometry",
    "math.AP": "Analysis of PDEs",
    "math.AT": "Algebraic Topology",
    "math.CA": "Classical Analysis and ODEs",
    "math.CO": "Combinatorics",
    "math.CT": "Category Theory",
    "math.CV": "Complex Variables",
    "math.DG": "Differential Geometry",
    "math.DS": "Dynamical Systems",
    "math.FA": "Functional Analysis",
    "math.GM": "General Mathematics",
    "math.GN": "General Topology",
    "math.GR": "Group Theory",
    "math.GT": "Geometric Topology",
    "math.HO": "History and Overview",
    "math.IT": "Information Theory",
    "math.KT": "K-Theory and Homology",
    "math.LO": "Logic",
    "math.MG": "Metric Geometry",
    "math.MP": "Mathematical Physics",
    "math.NA": "Numerical Analysis",
    "math.NT": "Number Theory",
    "math.OA": "Operator Algebras",
    "math.OC": "Optimization and Control",
    "math.PR": "Probability",
    "math.QA": "Quantum Algebra",
    "math.RA": "Rings and Algebras",
    "math.RT": "Representation Theory",
    "math.SG": "Symplectic Geometry",
    "math.SP": "Spectral Theory",
    "math.ST": "Statistics Theory",
    # Astrophysics
    "astro-ph": "Astrophysics",
    "astro-ph.CO": "Cosmology and Nongalactic Astrophysics",
    "astro-ph.EP": "Earth and Planetary Astrophysics",
    "astro-ph.GA": "Astrophysics of Galaxies",
    "astro-ph.HE": "High Energy Astrophysical Phenomena",
    "astro-ph.IM": "Instrumentation and Methods for Astrophysics",
    "astro-ph.SR": "Solar and Stellar Astrophysics",
    # Condensed Matter
    "cond-mat": "Condensed Matter",
    "cond-mat.dis-nn": "Disordered Systems and Neural Networks",
    "cond-mat.mes-hall": "Mesoscale and Nanoscale Physics",
    "cond-mat.mtrl-sci": "Materials Science",
    "cond-mat.other": "Other Condensed Matter",
    "cond-mat.quant-gas": "Quantum Gases",
    "cond-mat.soft": "Soft Condensed Matter",
    "cond-mat.stat-mech": "Statistical Mechanics",
    "cond-mat.str-el": "Strongly Correlated Electrons",
    "cond-mat.supr-con": "Superconductivity",
    # Physics archives without subject classes
    "gr-qc": "General Relativity and Quantum Cosmology",
    "hep-ex": "High Energy Physics - Experiment",
    "hep-lat": "High Energy Physics - Lattice",
    "hep-ph": "High Energy Physics - Phenomenology",
    "hep-th": "High Energy Physics - Theory",
    "math-ph": "Mathematical Physics",
    "nucl-ex": "Nuclear Experiment",
    "nucl-th": "Nuclear Theory",
    "quant-ph": "Quantum Physics",
    # Nonlinear Sciences
    "nlin": "Nonlinear Sciences",
    "nlin.AO": "Adaptation and Self-Organizing Systems",
    "nlin.CD": "Chaotic Dynamics",
    "nlin.CG": "Cellular Automata and Lattice Gases",
    "nlin.PS": "Pattern Formation and Solitons",
    "nlin.SI": "Exactly Solvable and Integrable Systems",
    # Physics
    "physics": "Physics",
    "physics.acc-ph": "Accelerator Physics",
    "physics.ao-ph": "Atmospheric and Oceanic Physics",
    "physics.app-ph": "Applied Physics",
    "physics.atm-clus": "Atomic and Molecular Clusters",
    "physics.atom-ph": "Atomic Physics",
    "physics.bio-ph": "Biological Physics",
    "physics.chem-ph": "Chemical Physics",
    "physics.class-ph": "Classical Physics",
    "physics.comp-ph": "Computational Physics",
    "physics.data-an": "Data Analysis, Statistics and Probability",
    "physics.ed-ph": "Physics Education",
    "physics.flu-dyn": "Fluid Dynamics",
    "physics.gen-ph": "General Physics",
    "physics.geo-ph": "Geophysics",
    "physics.hist-ph": "History and Philosophy of Physics",
    "physics.ins-det": "Instrumentation and Detectors",
    "physics.med-ph": "Medical Physics",
    "physics.optics": "Optics",
    "physics.plasm-ph": "Plasma Physics",
    "physics.pop-ph": "Popular Physics",
    "physics.soc-ph": "Physics and Society",
    "physics.space-ph": "Space Physics",
    # Quantitative Biology
    "q-bio": "Quantitative Biology",
    "q-bio.BM": "Biomolecules",
    "q-bio.CB": "Cell Behavior",
    "q-bio.GN": "Genomics",
    "q-bio.MN": "Molecular Networks",
    "q-bio.NC": "Neurons and Cognition",
    "q-bio.OT": "Other Quantitative Biology",
    "q-bio.PE": "Populations and Evolution",
    "q-bio.QM": "Quantitative Methods",
    "q-bio.SC": "Subcellular Processes",
    "q-bio.TO": "Tissues and Organs",
    # Quantitative Finance
    "q-fin.CP": "Computational Finance",
    "q-fin.EC": "Economics",
    "q-fin.GN": "General Finance",
    "q-fin.MF": "Mathematical Finance",
    "q-fin.PM": "Portfolio Management",
    "q-fin.PR": "Pricing of Securities",
    "q-fin.RM": "Risk Management",
    "q-fin.ST": "Statistical Finance",
    "q-fin.TR": "Trading and Market Microstructure",
    # Statistics
    "stat.AP": "Applications",
    "stat.CO": "Computation",
    "stat.ME": "Methodology",
    "stat.ML": "Machine Learning",
    "stat.OT": "Other Statistics",
    "stat.TH": "Statistics Theory",
    # Archives retired into the ones above; old papers still carry them
    "acc-phys": "Accelerator Physics",
    "adap-org": "Adaptation, Noise, and Self-Organizing Systems",
    "alg-geom": "Algebraic Geometry",
    "ao-sci": "Atmospheric-Oceanic Sciences",
    "atom-ph": "Atomic, Molecular and Optical Physics",
    "bayes-an": "Bayesian Analysis",
    "chao-dyn": "Chaotic Dynamics",
    "chem-ph": "Chemical Physics",
    "cmp-lg": "Computation and Language",
    "comp-gas": "Cellular Automata and Lattice Gases",
    "dg-ga": "Differential Geometry",
    "funct-an": "Functional Analysis",
    "mtrl-th": "Materials Theory",
    "patt-sol": "Pattern Formation and Solitons",
    "plasm-ph": "Plasma Physics",
    "q-alg": "Quantum Algebra and Topology",
    "solv-int": "Exactly Solvable and Integrable Systems",
    "supr-con": "Superconductivity",
}

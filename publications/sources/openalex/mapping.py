"""OpenAlex: map payloads to records and fetch pages with pyalex.

The mappers are pure (payload in, record out) and know the schema drift seen
in real recordings: ``primary_location`` vs the legacy ``host_venue``,
``topics`` vs legacy ``concepts``, ``grants`` vs ``awards`` + ``funders``, the
``IndexLength`` abstract index of old snapshots, ``last_known_institution`` vs
``last_known_institutions``. Fetching never touches the database: it yields
``Page`` objects whose ``next_cursor`` resumes the import exactly.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from urllib.parse import urlsplit

import pyalex
import requests
from pyalex.api import OpenAlexResponseList, QueryError

from publications.identifiers import (
    arxiv_id_from_doi,
    fold,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_orcid,
)
from publications.records import (
    AffiliationRef,
    AuthorRecord,
    AuthorRef,
    GrantRef,
    InstitutionRef,
    MappingError,
    Page,
    SourceError,
    TopicRef,
    VenueRef,
    WorkRecord,
)
from publications.sources.code_links import code_url_from_locations, extract_code_url
from publications.sources.common import parse_datetime
from publications.sources.shapes import AUTHOR_SHAPE, COUNT_MAX, WORK_SHAPE, check_shape
from publications.text import (
    ABSTRACT_MAX,
    AFFILIATION_MAX,
    AWARD_MAX,
    NAME_MAX,
    PLACE_MAX,
    TITLE_MAX,
    bounded,
    clean,
    clean_abstract,
    clean_line,
    http_url,
    kept_url,
)

SOURCE = "openalex"

# Fetch knobs, read when a fetch starts (not at import) so tests can patch them.
PER_PAGE = 200
DOI_BATCH = 50  # OpenAlex ORs at most 100 values per filter; 50 keeps URLs short
AUTHOR_BATCH = 50
MAX_RETRIES = 5
RETRY_BACKOFF = 0.5
RETRY_HTTP_CODES = [429, 500, 502, 503, 504]
OPENALEX_ID_MAX = 32  # the column every OpenAlex id is kept in
REFERENCES_MAX = 10_000  # the longest reference lists at OpenAlex hold a few thousand
ERROR_MESSAGE_LIMIT = 300  # OpenAlex's 400 message lists every valid field (4 kB)

# Work.Type values; OpenAlex types first, then the Crossref types of older records.
WORK_TYPES = {
    "article": "article",
    "journal-article": "article",
    "proceedings-article": "article",
    "letter": "article",
    "preprint": "preprint",
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "reference-entry": "book-chapter",
    "dataset": "dataset",
    "dissertation": "dissertation",
    "review": "review",
}

_TOPIC_KEY_RE = re.compile(
    r"^(?:https?://openalex\.org/)?((?:domains|fields|subfields)/\d+|[TtCc]\d+)/?$"
)
_ROR_RE = re.compile(r"^0[a-z0-9]{6}\d{2}$")
_DELETED_AUTHOR = "deleted author"
_GRANT_FIELDS = (  # list key, then its funder id, funder name and award id keys
    ("awards", "funder_id", "funder_display_name", "funder_award_id"),
    ("grants", "funder", "funder_display_name", "award_id"),
)
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-"})


# --- small readers: real payloads carry nulls where a list or object is expected


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _int(value: object) -> int | None:
    """A whole number that fits a count column (0 to 2**31 - 1), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= COUNT_MAX:
        return value
    return None


def _float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return number if math.isfinite(number) else None


def _text(value: object) -> str:
    return clean(value).strip()


def _line(value: object, limit: int = NAME_MAX) -> str:
    """A name, title or place on one line: cleaned, without markup, at most ``limit`` long."""
    return clean_line(value, limit)


def _date(value: object) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


def _datetime(value: object) -> datetime | None:
    """``updated_date`` is a date in old records and a naive UTC datetime in new ones."""
    return parse_datetime(value)


def short_id(value: object, prefix: str) -> str | None:
    """A short OpenAlex id of the wanted kind; legacy venue ids V… become S…."""
    if not isinstance(value, str):
        return None
    found = normalize_openalex_id(value)
    if found is None and prefix == "S":
        # Sources replaced venues keeping the number: V1983995261 is S1983995261.
        legacy = re.match(r"^(?:https?://openalex\.org/)?[Vv](\d+)$", value.strip())
        found = f"S{legacy.group(1)}" if legacy else None
    return found if found and found[0] == prefix else None


def _ror(value: object) -> str | None:
    """The bare ROR id (``05ppvf150``) from a URL or a bare id."""
    bare = _text(value).rstrip("/").rsplit("/", 1)[-1].lower()
    return bare if _ROR_RE.match(bare) else None


def _topic_key(value: object) -> str | None:
    match = _TOPIC_KEY_RE.match(_text(value))
    if not match:
        return None
    key = match.group(1)
    return f"openalex:{key if '/' in key else key.upper()}"


def _required_id(payload: object, prefix: str, noun: str) -> str:
    if not isinstance(payload, dict):
        raise MappingError(f"{noun} payload is a {type(payload).__name__}, not a JSON object")
    raw = payload.get("id")
    if not raw:
        raise MappingError(f"{noun} payload has no id")
    found = short_id(raw, prefix)
    if not found:
        raise MappingError(f"{noun} payload id {raw!r} is not an OpenAlex {noun} id")
    return found


def _guarded(noun: str, ident: str, build: Callable[[], object]):
    """Turn a crash on an odd payload into a MappingError so the batch goes on."""
    try:
        return build()
    except MappingError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise MappingError(f"{noun} {ident} is malformed: {exc!r}") from exc


# --- abstracts


def decode_abstract(index: object) -> str:
    """Words of an inverted index in position order.

    Accepts ``{word: [positions]}`` and the legacy snapshot shape
    ``{"IndexLength": n, "InvertedIndex": {word: [positions]}}``.
    """
    if not isinstance(index, dict):
        return ""
    if isinstance(index.get("InvertedIndex"), dict):
        index = index["InvertedIndex"]
    placed = [
        (position, word)
        for word, positions in index.items()
        for position in _list(positions)
        if _int(position) is not None
    ]
    placed.sort(key=lambda item: item[0])
    return " ".join(word for _, word in placed)


# --- works


def map_work(payload: dict) -> WorkRecord:
    """One OpenAlex work (API or snapshot, any schema age) as a WorkRecord."""
    work_id = _required_id(payload, "W", "work")
    check_shape(payload, WORK_SHAPE, f"work {work_id}")
    title = _line(payload.get("title") or payload.get("display_name"), TITLE_MAX)
    if not title:
        raise MappingError(f"work {work_id} has no title")
    return _guarded("work", work_id, lambda: _work_record(payload, work_id, title))


def _work_record(payload: dict, work_id: str, title: str) -> WorkRecord:
    ids = _dict(payload.get("ids"))
    doi = normalize_doi(payload.get("doi") or ids.get("doi"))
    published = _date(payload.get("publication_date"))
    location = _main_location(payload)
    dropped: dict[str, str] = {}
    venue = _venue(payload)
    if venue and venue.homepage_dropped:
        dropped["venue.homepage_url"] = venue.homepage_dropped
    abstract = clean_abstract(decode_abstract(payload.get("abstract_inverted_index")), ABSTRACT_MAX)
    return WorkRecord(
        source=SOURCE,
        external_id=work_id,
        title=title,
        abstract=abstract,
        type=work_type(payload.get("type")),
        language=_text(payload.get("language")),
        publication_date=published,
        publication_year=_int(payload.get("publication_year")) or (published and published.year),
        created_date=_date(payload.get("created_date")),
        updated_at=_datetime(payload.get("updated_date") or payload.get("updated")),
        doi=doi,
        arxiv_id=_arxiv_id(payload, doi),
        openalex_id=work_id,
        pmid=_pmid(ids.get("pmid")),
        venue=venue,
        pdf_url=kept_url(
            dropped,
            "pdf_url",
            location.get("pdf_url") or _dict(payload.get("best_oa_location")).get("pdf_url"),
        ),
        landing_url=kept_url(
            dropped, "landing_url", location.get("landing_page_url") or location.get("url")
        ),
        license=_text(location.get("license")),
        code_url=_code_url(payload, abstract),
        is_open_access=_open_access(payload),
        oa_status=_oa_status(payload),
        oa_url=kept_url(dropped, "oa_url", _oa_url(payload)),
        **_biblio(payload.get("biblio")),
        is_retracted=payload.get("is_retracted") is True,
        cited_by_count=_int(payload.get("cited_by_count")),
        counts_by_year=_counts_by_year(payload.get("counts_by_year")),
        authors=_authors(payload),
        authors_truncated=payload.get("is_authors_truncated") is True,
        topics=_work_topics(payload),
        grants=_grants(payload),
        referenced_works=referenced_works(payload.get("referenced_works"), work_id, dropped),
        dropped=dropped,
    )


def _work_id(value: object) -> str | None:
    found = short_id(value, "W")
    return found if found and len(found) <= OPENALEX_ID_MAX else None


def referenced_works(value: object, work_id: str, dropped: dict[str, str]) -> list[str] | None:
    """The W ids a work cites, each once, in the source's order; None when it gave no list.

    An entry that is not a work id is left out (and said so): one odd id must not
    cost the others their links. A work citing itself is no citation.
    """
    if value is None:
        return None
    if not isinstance(value, list):
        dropped["referenced_works"] = "not a list"
        return None
    ids = [_work_id(item) for item in value[:REFERENCES_MAX]]
    if None in ids:
        dropped["referenced_works"] = "entries that are not OpenAlex work ids were left out"
    if len(value) > REFERENCES_MAX:
        dropped["referenced_works"] = f"only the first {REFERENCES_MAX} references were kept"
    return [ident for ident in _unique(ids) if ident != work_id]


def _code_url(payload: dict, abstract: str) -> str:
    """A repository among the work's locations, else one its abstract names."""
    raw_types = {_text(payload.get(key)).lower() for key in ("type", "type_crossref")}
    found = code_url_from_locations(_location_urls(payload), is_software="software" in raw_types)
    url, _ = http_url(found or extract_code_url(abstract))
    return url


def work_type(value: object) -> str:
    return WORK_TYPES.get(_text(value).lower(), "other")


def _main_location(payload: dict) -> dict:
    """``primary_location`` (2023+) or the legacy ``host_venue`` (it has ``url``)."""
    return _dict(payload.get("primary_location")) or _dict(payload.get("host_venue"))


def _open_access(payload: dict) -> bool | None:
    value = _dict(payload.get("open_access")).get("is_oa")
    return value if isinstance(value, bool) else None


# OpenAlex open_access.oa_status values; "closed" is a status too.
OA_STATUSES = ("diamond", "gold", "hybrid", "bronze", "green", "closed")
BIBLIO_MAX = 50  # volume, issue and page columns


def _oa_status(payload: dict) -> str:
    value = _text(_dict(payload.get("open_access")).get("oa_status")).lower()
    return value if value in OA_STATUSES else ""


def _oa_url(payload: dict) -> object:
    """The best open copy: its PDF, else its landing page, else open_access.oa_url."""
    best = _dict(payload.get("best_oa_location"))
    return (
        best.get("pdf_url")
        or best.get("landing_page_url")
        or _dict(payload.get("open_access")).get("oa_url")
    )


def _biblio(value: object) -> dict[str, str]:
    """Volume, issue and pages as short one-line strings (numbers become text)."""
    biblio = _dict(value)
    fields = ("volume", "issue", "first_page", "last_page")
    found = {}
    for name in fields:
        raw = biblio.get(name)
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = str(raw)
        text = _line(raw, BIBLIO_MAX) if isinstance(raw, str) else ""
        found[name] = text
    return found


def _pmid(value: object) -> str | None:
    match = re.search(r"(\d+)/?$", str(value)) if value else None
    return match.group(1) if match else None


def _location_urls(payload: dict) -> Iterator[str]:
    locations = [payload.get("primary_location"), payload.get("best_oa_location")]
    locations += _list(payload.get("locations"))
    locations += [payload.get("host_venue"), *_list(payload.get("alternate_host_venues"))]
    for location in map(_dict, locations):
        for key in ("landing_page_url", "pdf_url", "url"):
            if url := _text(location.get(key)):
                yield url


def _arxiv_id(payload: dict, doi: str | None) -> str | None:
    """From a 10.48550/arxiv.* DOI, else from any location hosted on arxiv.org."""
    found = arxiv_id_from_doi(doi)
    for url in _location_urls(payload):
        if found:
            break
        host = (urlsplit(url).hostname or "").lower()
        if host == "arxiv.org" or host.endswith(".arxiv.org"):
            found = normalize_arxiv_id(url)
        elif host.endswith("doi.org"):
            found = arxiv_id_from_doi(url)
    return found


def _venue(payload: dict) -> VenueRef | None:
    source = _dict(_dict(payload.get("primary_location")).get("source"))
    if source:
        return _venue_ref(source, source.get("host_organization_name"))
    legacy = _dict(payload.get("host_venue"))
    return _venue_ref(legacy, legacy.get("publisher")) if legacy else None


def _venue_ref(data: dict, publisher: object) -> VenueRef | None:
    name = _line(data.get("display_name"), PLACE_MAX)
    if not name:
        return None
    homepage, dropped = http_url(data.get("homepage_url"))
    return VenueRef(
        name=name,
        openalex_id=short_id(data.get("id"), "S"),
        issn_l=_text(data.get("issn_l")),
        type=_text(data.get("type")),
        publisher=_line(publisher, PLACE_MAX),
        homepage_url=homepage,
        homepage_dropped=dropped,
    )


def _counts_by_year(items: object) -> list[dict]:
    counts = []
    for item in map(_dict, _list(items)):
        year, cited = _int(item.get("year")), _int(item.get("cited_by_count"))
        if year is not None and cited is not None:
            counts.append({"year": year, "cited_by_count": cited})
    return counts


# --- authorships


def _authors(payload: dict) -> list[AuthorRef]:
    corresponding = {short_id(x, "A") for x in _list(payload.get("corresponding_author_ids"))}
    corresponding.discard(None)
    refs = []
    for position, authorship in enumerate(_list(payload.get("authorships"))):
        ref = _author_ref(position, _dict(authorship), corresponding)
        if ref is not None:
            refs.append(ref)
    return refs


def _author_ref(position: int, authorship: dict, corresponding: set) -> AuthorRef | None:
    author = _dict(authorship.get("author"))
    raw_name = _line(authorship.get("raw_author_name"))
    name = _line(author.get("display_name")) or raw_name
    if not name:
        return None  # nothing to show or match; positions keep their list index
    openalex_id = short_id(author.get("id"), "A")
    return AuthorRef(
        position=position,
        name=name,
        raw_name=raw_name,
        openalex_id=openalex_id,
        orcid=normalize_orcid(author.get("orcid")),
        raw_affiliation=_raw_affiliation(authorship),
        institutions=_institutions(authorship.get("institutions")),
        is_corresponding=authorship.get("is_corresponding") is True
        or (openalex_id is not None and openalex_id in corresponding),
    )


def _raw_affiliation(authorship: dict) -> str:
    strings = list(_list(authorship.get("raw_affiliation_strings")))  # never the payload's own list
    strings += [authorship.get("raw_affiliation_string")]  # legacy snapshot field
    strings += [
        _dict(a).get("raw_affiliation_string") for a in _list(authorship.get("affiliations"))
    ]
    joined = "; ".join(_unique(_line(s, AFFILIATION_MAX) for s in strings if isinstance(s, str)))
    return bounded(joined, AFFILIATION_MAX)


def _institutions(items: object) -> list[InstitutionRef]:
    refs, seen = [], set()
    for item in map(_dict, _list(items)):
        ref = _institution_ref(item)
        if ref and (ref.openalex_id or ref.name) not in seen:
            seen.add(ref.openalex_id or ref.name)
            refs.append(ref)
    return refs


def _institution_ref(data: dict) -> InstitutionRef | None:
    name = _line(data.get("display_name"), PLACE_MAX)
    if not name:
        return None
    homepage, dropped = http_url(data.get("homepage_url"))
    return InstitutionRef(
        name=name,
        openalex_id=short_id(data.get("id"), "I"),
        ror=_ror(data.get("ror")),
        country_code=_text(data.get("country_code")).upper(),
        type=_text(data.get("type")),
        homepage_url=homepage,
        homepage_dropped=dropped,
    )


def map_institution(payload: dict) -> InstitutionRef:
    """An institution entity (it has the homepage that authorships lack)."""
    institution_id = _required_id(payload, "I", "institution")
    ref = _institution_ref(payload)
    if ref is None:
        raise MappingError(f"institution {institution_id} has no display_name")
    return ref


# --- topics


def _work_topics(payload: dict) -> list[TopicRef]:
    """Topics (2024+) with their hierarchy when present, else the legacy concepts."""
    topics = [t for t in _list(payload.get("topics")) if isinstance(t, dict)]
    primary = _dict(payload.get("primary_topic"))
    if primary and all(t.get("id") != primary.get("id") for t in topics):
        topics.insert(0, primary)
    if not topics:
        return _concepts(payload.get("concepts"), scale=1.0)
    primary_key = _topic_key(primary.get("id"))
    refs = [_topic_ref(t, _float(t.get("score")), primary_key) for t in topics]
    return _unique_topics(refs)


def _topic_ref(data: dict, score: float | None, primary_key: str | None = None) -> TopicRef | None:
    key, name = _topic_key(data.get("id")), _line(data.get("display_name"))
    if not key or not name:
        return None
    return TopicRef(
        key=key,
        name=name,
        kind="topic",
        score=1.0 if score is None else score,
        is_primary=key == primary_key,
        parent=_topic_parent(data),
    )


_TOPIC_LEVELS = ("domain", "field", "subfield")
# Parent chains seen, by their (id, name) pairs: a few hundred subfields recur in
# every batch, and their refs are never changed once built, so works share them.
_PARENTS: dict[tuple, TopicRef | None] = {}
_PARENTS_KEPT = 5_000


def _topic_parent(data: dict) -> TopicRef | None:
    """The subfield > field > domain chain of a topic, or None."""
    nodes = [_dict(data.get(level)) for level in _TOPIC_LEVELS]
    key = tuple((node.get("id"), node.get("display_name")) for node in nodes)
    try:
        return _PARENTS[key]
    except KeyError:
        pass
    except TypeError:  # a value that cannot be a key (a list, say): build it each time
        return _build_parent(nodes)
    if len(_PARENTS) >= _PARENTS_KEPT:
        _PARENTS.clear()
    parent = _PARENTS[key] = _build_parent(nodes)
    return parent


def _build_parent(nodes: list[dict]) -> TopicRef | None:
    parent = None
    for level, node in zip(_TOPIC_LEVELS, nodes, strict=True):
        node_key, node_name = _topic_key(node.get("id")), _line(node.get("display_name"))
        if node_key and node_name:
            parent = TopicRef(key=node_key, name=node_name, kind=level, parent=parent)
    return parent


def map_topic(payload: dict) -> TopicRef:
    """A topic entity (T…, with its subfield > field > domain) or a legacy concept (C…)."""
    if not isinstance(payload, dict):
        raise MappingError(f"topic payload is a {type(payload).__name__}, not a JSON object")
    key, name = _topic_key(payload.get("id")), _line(payload.get("display_name"))
    if key is None or "/" in key:
        raise MappingError(f"payload id {payload.get('id')!r} is not an OpenAlex topic or concept")
    if not name:
        raise MappingError(f"topic {key} has no display_name")
    if key.startswith("openalex:C"):
        return TopicRef(key=key, name=name, kind="concept")
    return _topic_ref(payload, None)


def map_venue(payload: dict) -> VenueRef:
    """A source entity (journal, repository, conference…), with its homepage."""
    source_id = _required_id(payload, "S", "source")
    ref = _venue_ref(payload, payload.get("host_organization_name"))
    if ref is None:
        raise MappingError(f"source {source_id} has no display_name")
    return ref


def _concepts(items: object, scale: float) -> list[TopicRef]:
    """Legacy concepts; ``scale`` brings author x_concepts (0-100) to the works' 0-1."""
    refs = []
    for item in map(_dict, _list(items)):
        concept_id, name = short_id(item.get("id"), "C"), _line(item.get("display_name"))
        if concept_id and name:
            score = _float(item.get("score"))
            refs.append(
                TopicRef(
                    key=f"openalex:{concept_id}",
                    name=name,
                    kind="concept",
                    score=1.0 if score is None else score / scale,
                )
            )
    return _unique_topics(refs)


def _unique_topics(refs: Iterable[TopicRef | None]) -> list[TopicRef]:
    seen, unique = set(), []
    for ref in refs:
        if ref is not None and ref.key not in seen:
            seen.add(ref.key)
            unique.append(ref)
    return unique


# --- funding


def _grants(payload: dict) -> list[GrantRef]:
    """Legacy ``grants`` and newer ``awards``; ``funders`` fills ROR ids and funders without awards.

    ``awards`` items are ``{id, display_name, funder_award_id, funder_id,
    funder_display_name, doi}``; ``funders`` items are ``{id, display_name, ror}``.
    """
    funders = {}
    for item in map(_dict, _list(payload.get("funders"))):
        if funder_id := short_id(item.get("id"), "F"):
            funders[funder_id] = item
    found: list[GrantRef] = []
    for key, id_key, name_key, award_key in _GRANT_FIELDS:
        for item in map(_dict, _list(payload.get(key))):
            _add_grant(found, funders, item.get(id_key), item.get(name_key), item.get(award_key))
    covered = {g.funder_openalex_id for g in found}
    for funder_id, item in funders.items():
        if funder_id not in covered:
            _add_grant(found, funders, funder_id, item.get("display_name"), "")
    return found


def _add_grant(found: list[GrantRef], funders: dict, raw_id, raw_name, raw_award) -> None:
    funder_id = short_id(raw_id, "F")
    funder = funders.get(funder_id, {})
    name = _line(raw_name, PLACE_MAX) or _line(funder.get("display_name"), PLACE_MAX)
    name = name or funder_id or ""
    if not name:
        return
    grant = GrantRef(
        funder_name=name,
        funder_openalex_id=funder_id,
        funder_ror=_ror(funder.get("ror")),
        award_id=_line(raw_award, AWARD_MAX),
    )
    if all(_grant_key(grant) != _grant_key(other) for other in found):
        found.append(grant)


def _grant_key(grant: GrantRef) -> tuple[str, str]:
    # Award ids may carry Unicode hyphens (G‐2017‐9800 in a real record): compare them as ASCII.
    return (grant.funder_openalex_id or fold(grant.funder_name), grant.award_id.translate(_DASHES))


def _unique(values: Iterable) -> list:
    return [v for v in dict.fromkeys(values) if v]


# --- authors


def map_author(payload: dict) -> AuthorRecord:
    """An OpenAlex author; the "Deleted Author" placeholder is kept with is_deleted=True."""
    author_id = _required_id(payload, "A", "author")
    check_shape(payload, AUTHOR_SHAPE, f"author {author_id}")
    name = _line(payload.get("display_name"))
    if not name:
        raise MappingError(f"author {author_id} has no display_name")
    return _guarded("author", author_id, lambda: _author_record(payload, author_id, name))


def _author_record(payload: dict, author_id: str, name: str) -> AuthorRecord:
    ids = _dict(payload.get("ids"))
    alternatives = [_line(n) for n in _list(payload.get("display_name_alternatives"))]
    return AuthorRecord(
        source=SOURCE,
        external_id=author_id,
        display_name=name,
        openalex_id=author_id,
        orcid=normalize_orcid(payload.get("orcid") or ids.get("orcid")),
        alternative_names=[n for n in _unique(alternatives) if n != name],
        is_deleted=fold(name) == _DELETED_AUTHOR,
        last_known_institutions=_last_known(payload),
        affiliations=_affiliations(payload.get("affiliations")),
        works_count=_int(payload.get("works_count")),
        cited_by_count=_int(payload.get("cited_by_count")),
        topics=_author_topics(payload),
        updated_at=_datetime(payload.get("updated_date")),
    )


def _last_known(payload: dict) -> list[InstitutionRef]:
    items = _list(payload.get("last_known_institutions"))
    if not items and isinstance(payload.get("last_known_institution"), dict):
        items = [payload["last_known_institution"]]  # schema before mid-2024
    return _institutions(items)


def _affiliations(items: object) -> list[AffiliationRef]:
    refs = []
    for item in map(_dict, _list(items)):
        institution = _institution_ref(_dict(item.get("institution")))
        if institution:
            years = sorted({y for y in _list(item.get("years")) if _int(y)}, reverse=True)
            refs.append(AffiliationRef(institution=institution, years=years))
    return refs


def _author_topics(payload: dict) -> list[TopicRef]:
    """Author topics score by their work count; legacy x_concepts by share (0-1)."""
    topics = [t for t in _list(payload.get("topics")) if isinstance(t, dict)]
    if topics:
        return _unique_topics(_topic_ref(t, _float(t.get("count"))) for t in topics)
    return _concepts(payload.get("x_concepts"), scale=100.0)


def author_candidate(payload: dict) -> dict:
    """What tells namesakes apart in a search result (plain JSON)."""
    institutions = _last_known(payload)
    topics = [t.name for t in _author_topics(payload)[:3]]
    return {
        "id": short_id(payload.get("id"), "A"),
        "display_name": _line(payload.get("display_name")),
        "orcid": normalize_orcid(payload.get("orcid")),
        "institution": institutions[0].name if institutions else "",
        "works_count": _int(payload.get("works_count")),
        "cited_by_count": _int(payload.get("cited_by_count")),
        "topics": topics,
    }


# --- fetching


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
        document = json.loads(body)
    except (TypeError, ValueError):
        return ""
    document = _dict(document)
    message = _text(document.get("message")) or _text(document.get("error"))
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


def _call(what: str, fetch: Callable[[], object]):
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
    query = _line(name)
    if not query:
        return []
    limit = max(1, min(limit, 200))
    configure()
    results = _call(
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
    dois = _unique(normalize_doi(d) for d in _list(raw) if isinstance(d, str))
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
    if since and _date(since) is None:
        raise ValueError(f"from_updated_date must be YYYY-MM-DD, not {since!r}")
    extra = {"from_updated_date": str(_date(since))} if since else {}
    ids = _unique(short_id(a, "A") for a in _list(parameters.get("author_ids")))
    return [
        ("works", {"author.id": "|".join(chunk), **extra}) for chunk in _chunks(ids, AUTHOR_BATCH)
    ]


def _resume(cursor: object, steps: list) -> dict | None:
    if cursor is None:
        return {"step": 0, "cursor": "*"} if steps else None
    if isinstance(cursor, str):
        try:
            cursor = json.loads(cursor)
        except ValueError:
            cursor = None
    state = _dict(cursor)
    step = _int(state.get("step"))
    valid = step is not None and 0 <= step < len(steps) and _text(state.get("cursor"))
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
    author = dict(_call(what, lambda: pyalex.Authors()[lookup]))
    author_id = short_id(author.get("id"), "A")
    if not author_id:
        raise SourceError(f"OpenAlex answered {what} without an author id", body=json.dumps(author))
    return Page(entity="author", payloads=[author], next_cursor=_next_step(state, steps, author_id))


def _doi_page(doi: str, state: dict, steps: list) -> Page:
    try:
        work = dict(_call(f"work {doi}", lambda: pyalex.Works()[f"https://doi.org/{doi}"]))
    except SourceError as exc:
        if exc.status != 404:
            raise
        work = None  # an unknown DOI is an empty answer, not a failed import
    payloads = [work] if work else []
    return Page("work", payloads, _next_step(state, steps), total=len(payloads))


def _works_page(filters: dict, what: str, state: dict, steps: list) -> Page:
    position = state["cursor"]
    results = _call(
        what, lambda: pyalex.Works().filter(**filters).get(per_page=PER_PAGE, cursor=position)
    )
    if not isinstance(results, OpenAlexResponseList):
        raise SourceError(f"OpenAlex answered {what} with a single record instead of a list")
    payloads = [dict(item) for item in results]
    meta = _dict(results.meta)
    following = _text(meta.get("next_cursor"))
    # A short page is the last one: skip the request that would return [] and no cursor.
    if following and len(payloads) >= PER_PAGE:
        next_cursor = {**state, "cursor": following}
    else:
        next_cursor = _next_step(state, steps)
    return Page("work", payloads, next_cursor, total=_int(meta.get("count")))

"""OpenAlex works: payload in, record out.

The mappers are pure and know the schema drift seen in real recordings:
``primary_location`` vs the legacy ``host_venue``, ``topics`` vs legacy
``concepts``, ``grants`` vs ``awards`` + ``funders``, the ``IndexLength``
abstract index of old snapshots.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from catalogue.dates import DAY, openalex_precision
from catalogue.identifiers import (
    arxiv_id_from_doi,
    fold,
    normalize_arxiv_id,
    normalize_doi,
    normalize_orcid,
)
from catalogue.links import http_url, kept_url
from catalogue.text import (
    ABSTRACT_MAX,
    AFFILIATION_MAX,
    AWARD_MAX,
    PLACE_MAX,
    TITLE_MAX,
    URL_MAX,
    bounded,
    clean_abstract,
)
from ingestion.records import (
    AuthorRef,
    GrantRef,
    MappingError,
    VenueRef,
    WorkRecord,
)
from ingestion.sources.code_links import code_url_from_locations, extract_code_url
from ingestion.sources.openalex.entities import institution_refs, venue_ref, work_topics
from ingestion.sources.openalex.values import (
    OPENALEX_ID_MAX,
    SOURCE,
    as_date,
    as_datetime,
    as_dict,
    as_int,
    as_language,
    as_line,
    as_list,
    as_ror,
    as_text,
    distinct,
    guarded,
    required_id,
    short_id,
)
from ingestion.sources.shapes import WORK_SHAPE, check_shape

REFERENCES_MAX = 10_000  # the longest reference lists at OpenAlex hold a few thousand


# OpenAlex's work types, kept as they are (catalogue.models.Work.Type).
OPENALEX_TYPES = frozenset(
    {
        "article",
        "book",
        "book-chapter",
        "book-review",
        "dataset",
        "dissertation",
        "editorial",
        "erratum",
        "grant",
        "letter",
        "libguides",
        "other",
        "paratext",
        "peer-review",
        "preprint",
        "reference-entry",
        "report",
        "retraction",
        "review",
        "standard",
        "supplementary-materials",
    }
)
# The Crossref words older records use for a type, as the OpenAlex type they mean.
CROSSREF_TYPES = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-set": "book",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "report-series": "report",
    "report-component": "report",
    "database": "dataset",
}


_GRANT_FIELDS = (  # list key, then its funder id, funder name and award id keys
    ("awards", "funder_id", "funder_display_name", "funder_award_id"),
    ("grants", "funder", "funder_display_name", "award_id"),
)
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-"})


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
        for position in as_list(positions)
        if as_int(position) is not None
    ]
    placed.sort(key=lambda item: item[0])
    return " ".join(word for _, word in placed)


# --- works


def map_work(payload: dict) -> WorkRecord:
    """One OpenAlex work (API or snapshot, any schema age) as a WorkRecord."""
    work_id = required_id(payload, "W", "work")
    check_shape(payload, WORK_SHAPE, f"work {work_id}")
    title = as_line(payload.get("title") or payload.get("display_name"), TITLE_MAX)
    if not title:
        raise MappingError(f"work {work_id} has no title")
    return guarded("work", work_id, lambda: _work_record(payload, work_id, title))


def _work_record(payload: dict, work_id: str, title: str) -> WorkRecord:
    ids = as_dict(payload.get("ids"))
    doi = normalize_doi(payload.get("doi") or ids.get("doi"))
    published = as_date(payload.get("publication_date"))
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
        language=as_language(payload.get("language")),
        publication_date=published,
        date_precision=openalex_precision(published) if published else DAY,
        publication_year=as_int(payload.get("publication_year")) or (published and published.year),
        created_date=as_date(payload.get("created_date")),
        updated_at=as_datetime(payload.get("updated_date") or payload.get("updated")),
        doi=doi,
        arxiv_id=_arxiv_id(payload, doi),
        openalex_id=work_id,
        pmid=_pmid(ids.get("pmid")),
        venue=venue,
        pdf_url=kept_url(
            dropped,
            "pdf_url",
            location.get("pdf_url") or as_dict(payload.get("best_oa_location")).get("pdf_url"),
        ),
        landing_url=kept_url(
            dropped, "landing_url", location.get("landing_page_url") or location.get("url")
        ),
        license=as_text(location.get("license")),
        code_url=_code_url(payload, abstract),
        is_open_access=_open_access(payload),
        oa_status=open_access_status(payload),
        oa_url=kept_url(dropped, "oa_url", open_access_url(payload)),
        **biblio_fields(payload.get("biblio")),
        is_retracted=payload.get("is_retracted") is True,
        cited_by_count=as_int(payload.get("cited_by_count")),
        counts_by_year=_counts_by_year(payload.get("counts_by_year")),
        authors=_authors(payload),
        authors_truncated=payload.get("is_authors_truncated") is True,
        topics=work_topics(payload),
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
    return [ident for ident in distinct(ids) if ident != work_id]


def _code_url(payload: dict, abstract: str) -> str:
    """A repository among the work's locations, else one its abstract names."""
    raw_types = {as_text(payload.get(key)).lower() for key in ("type", "type_crossref")}
    found = code_url_from_locations(_location_urls(payload), is_software="software" in raw_types)
    url, _ = http_url(found or extract_code_url(abstract))
    return url


def work_type(value: object) -> str:
    """OpenAlex's type as given; a Crossref word as the OpenAlex type it means; else "other"."""
    given = as_text(value).lower()
    if given in OPENALEX_TYPES:
        return given
    return CROSSREF_TYPES.get(given, "other")


def _main_location(payload: dict) -> dict:
    """``primary_location`` (2023+) or the legacy ``host_venue`` (it has ``url``)."""
    return as_dict(payload.get("primary_location")) or as_dict(payload.get("host_venue"))


def _open_access(payload: dict) -> bool | None:
    value = as_dict(payload.get("open_access")).get("is_oa")
    return value if isinstance(value, bool) else None


# OpenAlex open_access.oa_status values; "closed" is a status too.
OA_STATUSES = ("diamond", "gold", "hybrid", "bronze", "green", "closed")
BIBLIO_MAX = 50  # volume, issue and page columns


def open_access_status(payload: dict) -> str:
    value = as_text(as_dict(payload.get("open_access")).get("oa_status")).lower()
    return value if value in OA_STATUSES else ""


def open_access_url(payload: dict) -> object:
    """The best open copy: its PDF, else its landing page, else open_access.oa_url."""
    best = as_dict(payload.get("best_oa_location"))
    return (
        best.get("pdf_url")
        or best.get("landing_page_url")
        or as_dict(payload.get("open_access")).get("oa_url")
    )


def biblio_fields(value: object) -> dict[str, str]:
    """Volume, issue and pages as short one-line strings (numbers become text)."""
    biblio = as_dict(value)
    fields = ("volume", "issue", "first_page", "last_page")
    found = {}
    for name in fields:
        raw = biblio.get(name)
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = str(raw)
        text = as_line(raw, BIBLIO_MAX) if isinstance(raw, str) else ""
        found[name] = text
    return found


def _pmid(value: object) -> str | None:
    match = re.search(r"(\d+)/?$", str(value)) if value else None
    return match.group(1) if match else None


def _location_urls(payload: dict) -> Iterator[str]:
    locations = [payload.get("primary_location"), payload.get("best_oa_location")]
    locations += as_list(payload.get("locations"))
    locations += [payload.get("host_venue"), *as_list(payload.get("alternate_host_venues"))]
    for location in map(as_dict, locations):
        for key in ("landing_page_url", "pdf_url", "url"):
            if url := as_text(location.get(key), URL_MAX):
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
    source = as_dict(as_dict(payload.get("primary_location")).get("source"))
    if source:
        return venue_ref(source, source.get("host_organization_name"))
    legacy = as_dict(payload.get("host_venue"))
    return venue_ref(legacy, legacy.get("publisher")) if legacy else None


def _counts_by_year(items: object) -> list[dict]:
    counts = []
    for item in map(as_dict, as_list(items)):
        year, cited = as_int(item.get("year")), as_int(item.get("cited_by_count"))
        if year is not None and cited is not None:
            counts.append({"year": year, "cited_by_count": cited})
    return counts


# --- authorships


def _authors(payload: dict) -> list[AuthorRef]:
    corresponding = {short_id(x, "A") for x in as_list(payload.get("corresponding_author_ids"))}
    corresponding.discard(None)
    refs = []
    for position, authorship in enumerate(as_list(payload.get("authorships"))):
        ref = _author_ref(position, as_dict(authorship), corresponding)
        if ref is not None:
            refs.append(ref)
    return refs


def _author_ref(position: int, authorship: dict, corresponding: set) -> AuthorRef | None:
    author = as_dict(authorship.get("author"))
    raw_name = as_line(authorship.get("raw_author_name"))
    name = as_line(author.get("display_name")) or raw_name
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
        institutions=institution_refs(authorship.get("institutions")),
        is_corresponding=authorship.get("is_corresponding") is True
        or (openalex_id is not None and openalex_id in corresponding),
    )


def _raw_affiliation(authorship: dict) -> str:
    strings = list(
        as_list(authorship.get("raw_affiliation_strings"))
    )  # never the payload's own list
    strings += [authorship.get("raw_affiliation_string")]  # legacy snapshot field
    strings += [
        as_dict(a).get("raw_affiliation_string") for a in as_list(authorship.get("affiliations"))
    ]
    joined = "; ".join(distinct(as_line(s, AFFILIATION_MAX) for s in strings if isinstance(s, str)))
    return bounded(joined, AFFILIATION_MAX)


# --- funding


def _grants(payload: dict) -> list[GrantRef]:
    """Legacy ``grants`` and newer ``awards``; ``funders`` fills ROR ids and funders without awards.

    ``awards`` items are ``{id, display_name, funder_award_id, funder_id,
    funder_display_name, doi}``; ``funders`` items are ``{id, display_name, ror}``.
    """
    funders = {}
    for item in map(as_dict, as_list(payload.get("funders"))):
        if funder_id := short_id(item.get("id"), "F"):
            funders[funder_id] = item
    found: list[GrantRef] = []
    for key, id_key, name_key, award_key in _GRANT_FIELDS:
        for item in map(as_dict, as_list(payload.get(key))):
            _add_grant(found, funders, item.get(id_key), item.get(name_key), item.get(award_key))
    covered = {g.funder_openalex_id for g in found}
    for funder_id, item in funders.items():
        if funder_id not in covered:
            _add_grant(found, funders, funder_id, item.get("display_name"), "")
    return found


def _add_grant(found: list[GrantRef], funders: dict, raw_id, raw_name, raw_award) -> None:
    funder_id = short_id(raw_id, "F")
    funder = funders.get(funder_id, {})
    name = as_line(raw_name, PLACE_MAX) or as_line(funder.get("display_name"), PLACE_MAX)
    name = name or funder_id or ""
    if not name:
        return
    grant = GrantRef(
        funder_name=name,
        funder_openalex_id=funder_id,
        funder_ror=as_ror(funder.get("ror")),
        award_id=as_line(raw_award, AWARD_MAX),
    )
    if all(_grant_key(grant) != _grant_key(other) for other in found):
        found.append(grant)


def _grant_key(grant: GrantRef) -> tuple[str, str]:
    # Award ids may carry Unicode hyphens (G‐2017‐9800 in a real record): compare them as ASCII.
    return (grant.funder_openalex_id or fold(grant.funder_name), grant.award_id.translate(_DASHES))

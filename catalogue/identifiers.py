"""Normalising external identifiers, titles and names (pure functions).

Every identifier is stored in one canonical form so that the unique
constraints and the merge keys compare like with like.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

_DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/")
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_DOI_RE = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_NEW_RE = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_ARXIV_OLD_RE = re.compile(r"^([a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?$", re.IGNORECASE)
_ARXIV_URL_RE = re.compile(
    r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:\.pdf)?(?:[?#].*)?$", re.IGNORECASE
)
_OPENALEX_RE = re.compile(r"^(?:https?://openalex\.org/)?([WAISCTFPwaisctfp]\d+)$")
_ORCID_RE = re.compile(r"^(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")


def normalize_doi(value: str | None) -> str | None:
    """Return a DOI lower-cased without its resolver prefix, or None."""
    if not value:
        return None
    doi = value.strip()
    lowered = doi.lower()
    for prefix in _DOI_PREFIXES:
        if lowered.startswith(prefix):
            doi = doi[len(prefix) :]
            break
    if doi.lower().startswith("doi:"):
        doi = doi[4:]
    doi = doi.strip().lower()
    return doi if _DOI_RE.match(doi) else None


def normalize_arxiv_id(value: str | None) -> str | None:
    """Return an arXiv id without version or URL (``2101.00001``, ``astro-ph/0601001``)."""
    if not value:
        return None
    text = value.strip()
    url_match = _ARXIV_URL_RE.search(text)
    if url_match:
        text = url_match.group(1)
    doi_match = _ARXIV_DOI_RE.match(normalize_doi(text) or "")
    if doi_match:
        text = doi_match.group(1)
    if text.lower().startswith("arxiv:"):
        text = text[6:]
    new = _ARXIV_NEW_RE.match(text)
    if new:
        return new.group(1)
    old = _ARXIV_OLD_RE.match(text)
    if old:
        archive, number = old.group(1).split("/")
        return f"{archive.lower()}/{number}"
    return None


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """Return the arXiv id carried by a ``10.48550/arxiv.*`` DOI, or None."""
    normalized = normalize_doi(doi)
    if not normalized:
        return None
    match = _ARXIV_DOI_RE.match(normalized)
    return normalize_arxiv_id(match.group(1)) if match else None


def normalize_openalex_id(value: str | None) -> str | None:
    """Return a short OpenAlex id (``W2741809807``) from a URL or a bare id."""
    if not value:
        return None
    match = _OPENALEX_RE.match(value.strip())
    return match.group(1).upper() if match else None


def normalize_orcid(value: str | None) -> str | None:
    """Return a bare ORCID iD (``0000-0001-2345-678X``) if its checksum holds."""
    if not value:
        return None
    text = value.strip().rsplit("/", 1)[-1].upper()
    if not _ORCID_RE.match(text):
        return None
    digits = text.replace("-", "")
    total = 0
    for char in digits[:-1]:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    expected = "X" if check == 10 else str(check)
    return text if digits[-1] == expected else None


_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def fold(text: str) -> str:
    """Lower-case, strip accents and collapse everything but letters and digits."""
    if text.isascii():  # most names and titles: nothing to decompose
        return _NOT_ALNUM.sub(" ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NOT_ALNUM.sub(" ", stripped.lower()).strip()


def normalize_title(title: str | None) -> str:
    return fold(title or "")


def normalize_name(name: str | None) -> str:
    return fold(name or "")


def surname(name: str | None) -> str:
    """Best guess at the family name: the last word, or what precedes a comma."""
    if not name:
        return ""
    if "," in name:
        return fold(name.split(",", 1)[0])
    words = fold(name).split()
    return words[-1] if words else ""


# What a search box may be given: an id, bare or as an address ----------------

_ORCID_URL_RE = re.compile(r"^(?:https?://)?(?:www\.)?orcid\.org/(.+?)/?$", re.IGNORECASE)
_OPENALEX_URL_RE = re.compile(
    r"^(?:https?://)?(?:api\.)?openalex\.org/(?:(?:works|authors|people)/)?([^/?#\s]+)/?$",
    re.IGNORECASE,
)
_DOI_URL_RE = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/", re.IGNORECASE)
_ARXIV_ADDRESS_RE = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/", re.IGNORECASE)
# A bare OpenAlex id has many digits: "A4" or "T9" is a word someone searches for.
_BARE_OPENALEX_RE = re.compile(r"^[WAwa]\d{5,}$")


def parse_reference(query: str) -> tuple[str, str] | None:
    """The id a search query is, as ``(kind, normalised id)``, or None for words.

    Kinds: ``doi``, ``arxiv``, ``orcid``, ``openalex-work``, ``openalex-author``.
    Ids are recognised bare (``10.1145/…``, ``2101.00001v2``, ``hep-th/9901001``,
    ``0000-0002-1825-0097``, ``W2741809807``), with their prefixes (``doi:``,
    ``arXiv:``) and as addresses (doi.org, arxiv.org/abs|pdf, orcid.org, openalex.org).
    """
    text = query.strip().strip("<>\"'")
    if not text or " " in text:
        return None
    if _DOI_URL_RE.match(text) or text.lower().startswith(("doi:", "10.")):
        arxiv_id = arxiv_id_from_doi(text)
        if arxiv_id:
            return "arxiv", arxiv_id
        doi = normalize_doi(_DOI_URL_RE.sub("", text))
        return ("doi", doi) if doi else None
    if _ARXIV_ADDRESS_RE.match(text) or text.lower().startswith("arxiv:"):
        arxiv_id = normalize_arxiv_id(text)
        return ("arxiv", arxiv_id) if arxiv_id else None
    if match := _ORCID_URL_RE.match(text):
        orcid = normalize_orcid(match.group(1))
        return ("orcid", orcid) if orcid else None
    if match := _OPENALEX_URL_RE.match(text):
        return _openalex_reference(match.group(1))
    if _BARE_OPENALEX_RE.match(text):
        return _openalex_reference(text)
    if orcid := normalize_orcid(text) if _ORCID_RE.match(text.upper()) else None:
        return "orcid", orcid
    if arxiv_id := normalize_arxiv_id(text):
        return "arxiv", arxiv_id
    return None


def _openalex_reference(value: str) -> tuple[str, str] | None:
    short = normalize_openalex_id(value)
    if short and short[0] == "W":
        return "openalex-work", short
    if short and short[0] == "A":
        return "openalex-author", short
    return None


# OpenAlex numbers its ids below 9,000,000,000; the demo data set and the generated
# corpus use the ranges above 8,000,000,000 for local ids that must not be sent there.
OPENALEX_LOCAL_FROM = 8_000_000_000


def openalex_is_local(openalex_id: str | None) -> bool:
    """Whether an OpenAlex-form id is one of our local ids rather than OpenAlex's own."""
    digits = (openalex_id or "")[1:]
    return digits.isdigit() and int(digits) >= OPENALEX_LOCAL_FROM


def openalex_url(openalex_id: str | None) -> str:
    """The record's page at OpenAlex, or "" for no id or a local one."""
    if not openalex_id or openalex_is_local(openalex_id):
        return ""
    return f"https://openalex.org/{openalex_id}"


def doi_url(doi: str | None) -> str:
    """The doi.org address of ``doi`` ("" for none), the one place such an address is made.

    Every character but letters, digits, ``_.-~`` and the ``/`` between prefix and
    suffix is percent-encoded (RFC 3986): a DOI may hold ``[``, ``]``, ``#``, ``?``,
    ``%``, ``<``, ``>``, ``;`` or spaces, which would otherwise end or change the address.
    """
    return f"https://doi.org/{quote(doi, safe='/')}" if doi else ""

"""What the real recordings say, read without the project's mapping code.

``test_real_records_field_by_field`` compares each value read here with what a work
page, a researcher page and the read API show. Everything is read from the
payloads as OpenAlex and arXiv document their fields, with the few rules the
project documents for every imported text (markup dropped, entities decoded once,
white space collapsed, mojibake repaired) and for dates (docs/DATES.md).
A value the source does not give is ``None``.
"""

from __future__ import annotations

import gzip
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from lxml import etree

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"

# Markup the sources mix into text (HTML, JATS, MathML): dropped, block tags as a space.
_TAG = re.compile(
    r"</?(?:[a-z]+:[\w.-]+|a|b|br|div|em|i|li|p|span|strong|sub|sup|sc|u|tt|font|small|math"
    r"|mi|mo|mn|msup|msub|mrow|mfrac|msqrt|mtext)(?:[\s/][^<>]*)?>",
    re.IGNORECASE,
)
_BLOCK = re.compile(r"</?(?:p|br|div|li|[a-z]+:p)\b", re.IGNORECASE)
# UTF-8 read as Latin-1: a lead byte and its continuation bytes, each shown as a character.
_MOJIBAKE = re.compile("[\xc2-\xf4][\x80-\xbf]{1,3}")
# arXiv's own category codes ("cs.LG", "cond-mat.str-el", "hep-th"); feeds also list
# MSC and ACM classes among the categories, which are the authors' classes.
_ARXIV_CATEGORY = re.compile(r"^[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[a-z]+)*)?$")
# Controls and invisible format characters, which no imported text keeps (catalogue.text).
_UNWANTED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]"
)
# Carriage returns and the controls Python counts as white space read as a space.
_AS_SPACE = dict.fromkeys(map(ord, "\r\x0b\x0c\x1c\x1d\x1e\x1f\x85"), " ")
_ABSTRACT_LABEL = re.compile(r"^(?:abstract|summary)\s*[:.\u2014\u2013-]*\s+", re.IGNORECASE)
# What publishers' pages put around an abstract: cookie notices, copyright and sign-in lines.
_SITE_JUNK = re.compile(
    r"cookie.*\b(?:our|this) (?:web)?site|\b(?:our|this) (?:web)?site.*cookie|by continuing.*cookie"
    r"|^(?:\u00a9|\(c\)|copyright\b|sign in|log in|access through your institution)"
    r"|all rights reserved|enable javascript",
    re.IGNORECASE,
)
# OpenAlex types, and the Crossref words older records use for them.
CROSSREF_TYPES = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-part": "book-chapter",
    "book-section": "book-chapter",
}


def _unmojibake(text: str) -> str:
    def repair(match: re.Match) -> str:
        try:
            return match.group(0).encode("latin-1").decode("utf-8")
        except UnicodeError:
            return match.group(0)

    return _MOJIBAKE.sub(repair, text)


def text(value: object) -> str | None:
    """A text as the site keeps it: markup dropped, entities decoded, white space one space."""
    if not isinstance(value, str):
        return None
    stripped = _TAG.sub(lambda m: " " if _BLOCK.match(m.group(0)) else "", value)
    found = _unmojibake(html.unescape(stripped)).translate(_AS_SPACE)
    return " ".join(_UNWANTED.sub("", found).split()) or None


def without_site_junk(found: str | None) -> str | None:
    """An abstract without its label and the site's notices at either end."""
    if not found:
        return None
    sentences = re.split(r"(?<=[.!?])\s+", _ABSTRACT_LABEL.sub("", found))
    while sentences and _SITE_JUNK.search(sentences[0]):
        sentences.pop(0)
    while sentences and _SITE_JUNK.search(sentences[-1]):
        sentences.pop()
    return " ".join(sentences) or None


def doi(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    found = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", value.strip(), flags=re.I)
    return found.lower() if found.startswith("10.") else None


def arxiv_id(value: object) -> str | None:
    """An arXiv id without its version from an abs or pdf address, or an arXiv DOI."""
    if not isinstance(value, str):
        return None
    found = re.search(r"arxiv\.org/(?:abs|pdf)/([\w.-]+(?:/\d{7})?)", value, re.I)
    found = found or re.search(r"10\.48550/arxiv\.([\w.-]+(?:/\d{7})?)", value, re.I)
    return re.sub(r"(?:v\d+)?(?:\.pdf)?$", "", found.group(1)) if found else None


def published(day: object) -> tuple[str, str] | None:
    """OpenAlex's date at the precision docs/DATES.md reads in it: ("2018", "year")..."""
    if not isinstance(day, str) or not re.match(r"^\d{4}-\d\d-\d\d", day):
        return None
    year, month, date = day[:4], day[5:7], day[8:10]
    if date != "01":
        return day[:10], "day"
    return (year, "year") if month == "01" else (f"{year}-{month}", "month")


def journal_year(reference: str | None) -> str | None:
    """The year a journal reference names: in parentheses first, else the last standing alone."""
    for pattern in (
        r"\(\s*(?:[A-Za-z]+\.?\s+)?(1[89]\d\d|20\d\d)\s*\)",
        r"(?<![\w-])(1[89]\d\d|20\d\d)(?![\w-])",
    ):
        years = re.findall(pattern, reference or "")
        if years:
            return years[-1]
    return None


@dataclass
class Person:
    """One byline position as the source gives it."""

    name: str | None
    raw_name: str | None = None
    openalex_id: str | None = None
    orcid: str | None = None
    corresponding: bool = False
    affiliations: list[str] = field(default_factory=list)  # raw strings, in order
    institutions: list[str] = field(default_factory=list)  # OpenAlex institution ids


@dataclass
class Record:
    """One work as one source gives it: every field the tests compare."""

    source: str
    key: str  # a W id or an arXiv id
    payload: dict
    fields: dict = field(default_factory=dict)
    byline: list[Person] = field(default_factory=list)


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def short(value: object) -> str | None:
    found = re.search(r"([WAISCTF]\d+)/?$", value) if isinstance(value, str) else None
    return found.group(1) if found else None


def orcid(value: object) -> str | None:
    found = re.search(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", value) if isinstance(value, str) else None
    return found.group(1) if found else None


def abstract(index: object) -> str | None:
    """An OpenAlex abstract rebuilt from its inverted index (either shape)."""
    index = as_dict(index)
    index = as_dict(index.get("InvertedIndex")) or index
    words = sorted((pos, word) for word, places in index.items() for pos in as_list(places))
    return without_site_junk(text(" ".join(word for _, word in words)))


def _number(value: object) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return text(value)


# OpenAlex ------------------------------------------------------------------------------


def _openalex_person(authorship: dict, corresponding: set[str]) -> Person:
    author = as_dict(authorship.get("author"))
    places = as_list(authorship.get("raw_affiliation_strings"))
    places += [authorship.get("raw_affiliation_string")]  # the legacy snapshot's field
    places += [
        as_dict(a).get("raw_affiliation_string") for a in as_list(authorship.get("affiliations"))
    ]
    ident = short(author.get("id"))
    return Person(
        name=text(author.get("display_name")) or text(authorship.get("raw_author_name")),
        raw_name=text(authorship.get("raw_author_name")),
        openalex_id=ident,
        orcid=orcid(author.get("orcid")),
        corresponding=authorship.get("is_corresponding") is True or ident in corresponding,
        affiliations=list(dict.fromkeys(filter(None, map(text, places)))),
        institutions=[
            key
            for key in map(place_key, as_list(authorship.get("institutions")))
            if key  # without an id, an "institution" is the place as written
        ],
    )


def place_key(place: object) -> str | None:
    """An institution's OpenAlex id, else its ROR id ("ror:…"); None for a name alone."""
    place = as_dict(place)
    found = re.search(r"([0-9a-z]{9})/?$", str(place.get("ror") or ""))
    key = short(place.get("id")) or (f"ror:{found.group(1)}" if found else None)
    return key if key and text(place.get("display_name")) else None


def _openalex_arxiv_id(payload: dict, found_doi: str | None) -> str | None:
    if found_doi and found_doi.startswith("10.48550/arxiv."):
        return arxiv_id(found_doi)
    locations = [payload.get("primary_location"), payload.get("best_oa_location")]
    locations += as_list(payload.get("locations")) + [payload.get("host_venue")]
    locations += as_list(payload.get("alternate_host_venues"))
    for location in map(as_dict, locations):
        for key in ("landing_page_url", "pdf_url", "url"):
            if found := arxiv_id(location.get(key)):
                return found
    return None


def _grants(payload: dict) -> dict[str, set[str]]:
    """Award ids by funder name (an empty set for a funder named without an award)."""
    funders = {
        short(f.get("id")): text(f.get("display_name"))
        for f in map(as_dict, as_list(payload.get("funders")))
    }
    found: dict[str, set[str]] = {}
    for item in map(as_dict, as_list(payload.get("grants")) + as_list(payload.get("awards"))):
        ident = short(item.get("funder") or item.get("funder_id"))
        name = text(item.get("funder_display_name")) or funders.get(ident)
        award = text(item.get("award_id") or item.get("funder_award_id"))
        if name:
            found.setdefault(name, set()).update([award] if award else [])
            funders.pop(ident, None)
    for name in filter(None, funders.values()):
        found.setdefault(name, set())
    return found


def _topics(payload: dict) -> list[str]:
    """Topic names, the primary first; the legacy concepts when a record has no topics."""
    topics = [t for t in map(as_dict, as_list(payload.get("topics"))) if t.get("id")]
    primary = as_dict(payload.get("primary_topic"))
    if primary.get("id"):
        topics = [primary] + [t for t in topics if t.get("id") != primary.get("id")]
    return _names(
        topics or [c for c in map(as_dict, as_list(payload.get("concepts"))) if c.get("id")]
    )


def _names(items: list) -> list[str]:
    return list(dict.fromkeys(filter(None, (text(as_dict(t).get("display_name")) for t in items))))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def openalex_record(payload: dict) -> Record:
    location = as_dict(payload.get("primary_location")) or as_dict(payload.get("host_venue"))
    venue = as_dict(location.get("source")) if "source" in location else location
    biblio, access = as_dict(payload.get("biblio")), as_dict(payload.get("open_access"))
    found_doi = doi(payload.get("doi") or as_dict(payload.get("ids")).get("doi"))
    kind = text(payload.get("type"))
    kind = CROSSREF_TYPES.get(kind, kind)
    ident = short(payload.get("id"))
    references = payload.get("referenced_works")  # a list, or None when not given
    corresponding = {short(a) for a in as_list(payload.get("corresponding_author_ids"))}
    fields = {
        "title": text(payload.get("title") or payload.get("display_name")),
        "doi": found_doi,
        "arxiv_id": _openalex_arxiv_id(payload, found_doi),
        "date": published(payload.get("publication_date")),
        "type": kind,
        "venue": text(venue.get("display_name")),
        **{
            name: _number(biblio.get(name))
            for name in ("volume", "issue", "first_page", "last_page")
        },
        "is_oa": access.get("is_oa") if isinstance(access.get("is_oa"), bool) else None,
        "oa_status": text(access.get("oa_status")),
        "oa_url": text(access.get("oa_url")),
        "cited_by": _count(payload.get("cited_by_count")),
        "as_of": (payload.get("updated_date") or "")[:10] or None,
        "topics": _topics(payload),
        "keywords": _names(as_list(payload.get("keywords"))),
        "categories": [],
        "comments": None,
        "journal_ref": None,
        "abstract": abstract(payload.get("abstract_inverted_index")),
        "references": None
        if references is None
        else len({*map(short, as_list(references))} - {ident, None}),
        "grants": _grants(payload),
        "language": text(payload.get("language")),
        "retracted": payload.get("is_retracted") is True,
    }
    byline, named = [], set()
    for authorship in map(as_dict, as_list(payload.get("authorships"))):
        person = _openalex_person(authorship, corresponding)
        if person.name and (person.openalex_id is None or person.openalex_id not in named):
            byline.append(person)  # a person the source lists twice holds the first place
            named.add(person.openalex_id)
    return Record("openalex", ident, payload, fields, byline)


# arXiv ---------------------------------------------------------------------------------


def _entry(entry: etree._Element) -> dict:
    def child(namespace: str, tag: str) -> str | None:
        found = entry.find(f"{namespace}{tag}")
        return "".join(found.itertext()) if found is not None else None

    primary = entry.find(f"{ARXIV}primary_category")
    return {
        "id": child(ATOM, "id"),
        "title": child(ATOM, "title"),
        "summary": child(ATOM, "summary"),
        "published": child(ATOM, "published"),
        "updated": child(ATOM, "updated"),
        "comment": child(ARXIV, "comment"),
        "journal_ref": child(ARXIV, "journal_ref"),
        "doi": child(ARXIV, "doi"),
        "primary_category": primary.get("term") if primary is not None else None,
        "categories": [c.get("term") for c in entry.iter(f"{ATOM}category")],
        "authors": [
            (
                "".join(a.find(f"{ATOM}name").itertext()),
                ["".join(x.itertext()) for x in a.iter(f"{ARXIV}affiliation")],
            )
            for a in entry.iter(f"{ATOM}author")
        ],
    }


def arxiv_record(entry: dict) -> Record:
    ident = arxiv_id("arxiv.org/abs/" + entry["id"].split("/abs/")[-1])
    codes = [entry["primary_category"], *entry["categories"]]
    categories = list(dict.fromkeys(c for c in codes if c and _ARXIV_CATEGORY.match(c)))
    year = journal_year(text(entry["journal_ref"]))
    fields = {
        "title": text(entry["title"]),
        "doi": doi(entry["doi"]),
        "arxiv_id": ident,
        "date": (year, "year") if year else (entry["published"][:10], "day"),
        "type": "preprint",
        "venue": None,
        **dict.fromkeys(("volume", "issue", "first_page", "last_page")),
        "is_oa": True,  # arXiv serves every paper free to read
        "oa_status": None,
        "oa_url": None,
        "cited_by": None,
        "as_of": None,
        "topics": [],
        "keywords": [],
        "categories": categories,
        "comments": text(entry["comment"]),
        "journal_ref": text(entry["journal_ref"]),
        "abstract": without_site_junk(text(entry["summary"])),
        "references": None,
        "grants": {},
        "language": None,
        "retracted": False,
    }
    byline = [
        Person(text(name), text(name), affiliations=[a for a in map(text, places) if a])
        for name, places in entry["authors"]
    ]
    return Record("arxiv", ident, entry, fields, [p for p in byline if p.name])


# The recordings --------------------------------------------------------------------------


def recording_files(root: Path) -> list[Path]:
    """Every recorded response, in the order the tests import them."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".md")


def _cassette_bodies(data: bytes):
    document = as_dict(yaml.safe_load(data))
    for interaction in map(
        as_dict, as_list(document.get("http_interactions") or document.get("interactions"))
    ):
        request, response = map(as_dict, (interaction.get("request"), interaction.get("response")))
        status = response.get("status")
        code = as_dict(status).get("code") if isinstance(status, dict) else status
        if "//api.openalex.org/" not in str(request.get("uri")) or code != 200:
            continue
        body = as_dict(response.get("body")).get("string")
        if isinstance(body, bytes):
            body = gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
        yield body


def _documents(path: Path):
    """(source, document) of each answer in one file: JSON objects or an Atom root."""
    data = path.read_bytes()
    if path.suffix in (".yml", ".yaml"):
        bodies = list(_cassette_bodies(data))
    elif path.suffix == ".jsonl":
        bodies = [line for line in data.splitlines() if line.strip()]
    elif path.suffix == ".xml":
        yield "arxiv", etree.fromstring(data)
        return
    else:
        bodies = [data]
    for body in bodies:
        try:
            yield "openalex", json.loads(body)
        except ValueError:
            continue


@dataclass
class Recordings:
    works: dict[str, Record] = field(default_factory=dict)  # W id or arXiv id -> newest
    untitled: set[str] = field(default_factory=set)  # W ids of works without a title
    authors: dict[str, dict] = field(default_factory=dict)  # A id -> newest author record
    orcids: dict[str, set[str]] = field(default_factory=dict)  # A id -> ORCIDs any record gives
    places: dict[str, set[str]] = field(default_factory=dict)  # I id -> names any record gives


def _newer(found: dict, key: str, stamp: str, value) -> None:
    """Keep ``value`` unless an older version is offered (a tie goes to the later file)."""
    held = found.get(key)
    if held is None or stamp >= held[0]:
        found[key] = (stamp, value)


def _add(found: dict[str, set[str]], key: str | None, value: str | None) -> None:
    if key and value:
        found.setdefault(key, set()).add(value)


def _note_places(recordings: Recordings, places: list) -> None:
    for place in map(as_dict, places):
        _add(recordings.places, place_key(place), text(place.get("display_name")))


def _note(recordings: Recordings, works: dict, authors: dict, item: dict) -> None:
    """One OpenAlex entity: a work, an author or an institution (the others are not shown)."""
    ident, stamp = short(item.get("id")) or "-", str(item.get("updated_date") or "")
    if ident[0] == "W" and not text(item.get("title") or item.get("display_name")):
        recordings.untitled.add(ident)
    elif ident[0] == "W":
        _newer(works, ident, stamp, openalex_record(item))
        for authorship in map(as_dict, as_list(item.get("authorships"))):
            author = as_dict(authorship.get("author"))
            _add(recordings.orcids, short(author.get("id")), orcid(author.get("orcid")))
            _note_places(recordings, as_list(authorship.get("institutions")))
    elif ident[0] == "A":
        _newer(authors, ident, stamp, item)
        places = [as_dict(a).get("institution") for a in as_list(item.get("affiliations"))]
        places += as_list(item.get("last_known_institutions"))
        _note_places(recordings, [*places, item.get("last_known_institution")])
    elif ident[0] == "I":
        _note_places(recordings, [item])


def read(root: Path) -> Recordings:
    """The newest version of every work, arXiv entry and author record in the recordings."""
    works: dict = {}
    authors: dict = {}
    recordings = Recordings()
    for path in recording_files(root):
        for source, document in _documents(path):
            if source == "openalex":
                document = as_dict(document)
                for item in map(as_dict, as_list(document.get("results")) or [document]):
                    _note(recordings, works, authors, item)
                continue
            for entry in map(_entry, document.iter(f"{ATOM}entry")):
                if "/api/errors" not in (entry["id"] or ""):  # arXiv's answer to a bad query
                    record = arxiv_record(entry)
                    _newer(works, record.key, entry["updated"] or "", record)
    recordings.works = {key: value for key, (_, value) in works.items()}
    recordings.authors = {key: value for key, (_, value) in authors.items()}
    return recordings

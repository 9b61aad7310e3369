"""Labelled sets for the identity bench: recorded OpenAlex works, read into bylines.

Every OpenAlex work found under a fixtures folder is read, whatever holds it:
a single work, a list response (``results``), a snapshot partition (JSON
Lines) or a recorded cassette (YAML, bodies possibly gzipped). The truth of a
byline is its OpenAlex author id; a byline without one is a person of its own.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import yaml

from identity.evidence import Byline


def _bodies(cassette) -> list[str]:
    found = []
    interactions = cassette.get("http_interactions") or cassette.get("interactions") or []
    for interaction in interactions:
        body = (interaction.get("response") or {}).get("body") or {}
        text = body.get("string")
        if isinstance(text, dict):  # some recorders nest the bytes once more
            text = text.get("base64_string") and base64.b64decode(text["base64_string"])
        if isinstance(text, bytes):
            try:
                text = gzip.decompress(text).decode()
            except OSError:
                text = text.decode("utf-8", "replace")
        if text:
            found.append(text)
    return found


def _walk(value, found: dict) -> None:
    if isinstance(value, dict):
        if str(value.get("id", "")).startswith("https://openalex.org/W") and "authorships" in value:
            known = found.get(value["id"])
            if known is None or str(value.get("updated_date")) > str(known.get("updated_date")):
                found[value["id"]] = value
        for item in value.get("results") or []:
            _walk(item, found)


def _documents(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        yield json.loads(text)
    elif path.suffix == ".jsonl":
        yield from (json.loads(line) for line in text.splitlines() if line.strip())
    elif path.suffix in (".yml", ".yaml"):
        for body in _bodies(yaml.safe_load(text) or {}):
            try:
                yield json.loads(body)
            except ValueError:
                continue


def openalex_works(root: Path) -> list[dict]:
    """Every distinct OpenAlex work under ``root`` (the latest copy of each)."""
    found: dict[str, dict] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".yml", ".yaml"):
            try:
                for document in _documents(path):
                    _walk(document, found)
            except (ValueError, yaml.YAMLError):
                continue
    return [found[k] for k in sorted(found)]


def _abstract(work: dict) -> str:
    index = work.get("abstract_inverted_index") or {}
    index = index.get("InvertedIndex", index)  # the snapshot's older shape nests it
    places = sorted((p, word) for word, ps in index.items() if isinstance(ps, list) for p in ps)
    return " ".join(word for _, word in places)


def _venue(work: dict) -> str:
    location = work.get("primary_location") or {}
    source = location.get("source") or {}
    return source.get("display_name") or (work.get("host_venue") or {}).get("display_name") or ""


def _topics(work: dict) -> list[str]:
    topics = []
    for topic in work.get("topics") or []:
        topics.append(topic.get("id", ""))
        topics.append((topic.get("subfield") or {}).get("id", ""))
    for concept in work.get("concepts") or []:
        if (concept.get("level") or 0) >= 1:
            topics.append(concept.get("id", ""))
    return [t for t in topics if t]


def _affiliations(authorship: dict) -> tuple[list[str], list[str]]:
    raw = list(authorship.get("raw_affiliation_strings") or [])
    if not raw and authorship.get("raw_affiliation_string"):
        raw = [authorship["raw_affiliation_string"]]
    institutions = [i.get("id", "") for i in authorship.get("institutions") or []]
    return raw, [i for i in institutions if i]


def _name(authorship: dict) -> str:
    author = authorship.get("author") or {}
    return authorship.get("raw_author_name") or author.get("display_name") or ""


def work_bylines(work: dict) -> tuple[list[tuple[Byline, str, str]], int]:
    """(byline, truth, display name) for each author of a work; repeated authors dropped."""
    authorships, seen, repeated = [], set(), 0
    for authorship in work.get("authorships") or []:
        author = authorship.get("author") or {}
        key = author.get("id") or _name(authorship).lower()
        if key in seen or not _name(authorship):
            repeated += key in seen
            continue
        seen.add(key)
        authorships.append(authorship)
    names = [_name(a) for a in authorships]
    text = [work.get("title") or work.get("display_name") or "", _abstract(work)]
    found = []
    for position, authorship in enumerate(authorships):
        author = authorship.get("author") or {}
        raw, institutions = _affiliations(authorship)
        byline_id = f"{work['id'].rsplit('/', 1)[-1]}:{position}"
        byline = Byline(
            id=byline_id,
            name=names[position],
            work_id=work["id"],
            coauthors=tuple(n for i, n in enumerate(names) if i != position),
            affiliations=tuple(raw),
            institutions=tuple(institutions),
            topics=tuple(_topics(work)),
            venue=_venue(work),
            year=work.get("publication_year"),
            references=tuple(work.get("referenced_works") or ()),
            words=tuple(t for t in text if t),
            orcid=author.get("orcid") or "",
            source_author_id=author.get("id") or "",
        )
        found.append((byline, author.get("id") or byline_id, author.get("display_name") or ""))
    return found, repeated


# The works as the importer reads them -----------------------------------------


def byline_places(works: list[dict]) -> dict[str, tuple[str, int, str]]:
    """Each byline id ``work_bylines`` gives -> (short work id, position in the work's
    authorships, author key): the position the importer keeps for that byline."""
    places = {}
    for work in works:
        short, seen, kept = work["id"].rsplit("/", 1)[-1], set(), 0
        for position, authorship in enumerate(work.get("authorships") or []):
            key = (authorship.get("author") or {}).get("id") or _name(authorship).lower()
            if key in seen or not _name(authorship):
                continue
            seen.add(key)
            places[f"{short}:{kept}"] = (short, position, key)
            kept += 1
    return places


def _bare_keys(bylines: list[Byline], places) -> dict[str, set[str]]:
    """Short work id -> the author keys of its bylines that carry no id."""
    bare: dict[str, set[str]] = {}
    for byline in bylines:
        if not byline.source_author_id and not byline.orcid:
            short, _, key = places[byline.id]
            bare.setdefault(short, set()).add(key)
    return bare


def stripped_works(works: list[dict], bylines: list[Byline], places, printed=False) -> list[dict]:
    """Copies of ``works`` without the author ids (id, ORCID) removed from ``bylines``
    (every listing of that author on the work); with ``printed``, those authors also
    lose OpenAlex's display name where the name as printed is known."""
    bare = _bare_keys(bylines, places)
    copies = []
    for work in works:
        keys = bare.get(work["id"].rsplit("/", 1)[-1], set())
        authorships = []
        for authorship in work.get("authorships") or []:
            author = dict(authorship.get("author") or {})
            if (author.get("id") or _name(authorship).lower()) in keys:
                author.update(id=None, orcid=None)
                if printed and authorship.get("raw_author_name"):
                    author["display_name"] = authorship["raw_author_name"]
            authorships.append({**authorship, "author": author})
        copies.append({**work, "authorships": authorships})
    return copies


def unstripped(page: list[dict], bylines: list[Byline], places) -> tuple[list[str], int]:
    """Check a page of stripped works against the bylines: the ids of bylines without
    an id that still carry one (an OpenAlex id or an ORCID) on the page, and how many
    of them keep OpenAlex's display name, having no name as printed."""
    by_short = {work["id"].rsplit("/", 1)[-1]: work for work in page}
    leaks, display_only = [], 0
    for byline in bylines:
        if byline.source_author_id or byline.orcid:
            continue
        short, position, _ = places[byline.id]
        authorship = by_short[short]["authorships"][position]
        author = authorship.get("author") or {}
        if author.get("id") or author.get("orcid"):
            leaks.append(byline.id)
        display_only += not authorship.get("raw_author_name")
    return leaks, display_only

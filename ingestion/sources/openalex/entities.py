"""OpenAlex institutions, topics, venues and authors: payload in, record out."""

from __future__ import annotations

from collections.abc import Iterable

from catalogue.identifiers import (
    fold,
    normalize_orcid,
)
from catalogue.links import http_url
from catalogue.text import (
    PLACE_MAX,
)
from ingestion.records import (
    AffiliationRef,
    AuthorRecord,
    InstitutionRef,
    MappingError,
    TopicRef,
    VenueRef,
)
from ingestion.sources.openalex.values import (
    SOURCE,
    as_country,
    as_datetime,
    as_dict,
    as_float,
    as_int,
    as_issn,
    as_line,
    as_list,
    as_ror,
    as_text,
    distinct,
    guarded,
    required_id,
    short_id,
    topic_key,
)
from ingestion.sources.shapes import AUTHOR_SHAPE, YEAR_MAX, check_shape

DELETED_AUTHOR = "deleted author"
YEAR_MIN = 1000  # a yearly count before it is not a year the source counted in


def venue_ref(data: dict, publisher: object) -> VenueRef | None:
    name = as_line(data.get("display_name"), PLACE_MAX)
    if not name:
        return None
    homepage, dropped = http_url(data.get("homepage_url"))
    return VenueRef(
        name=name,
        openalex_id=short_id(data.get("id"), "S"),
        issn_l=as_issn(data.get("issn_l")),
        type=as_text(data.get("type")),
        publisher=as_line(publisher, PLACE_MAX),
        homepage_url=homepage,
        homepage_dropped=dropped,
    )


def institution_refs(items: object) -> list[InstitutionRef]:
    refs, seen = [], set()
    for item in map(as_dict, as_list(items)):
        ref = _institution_ref(item)
        if ref and (ref.openalex_id or ref.name) not in seen:
            seen.add(ref.openalex_id or ref.name)
            refs.append(ref)
    return refs


def _institution_ref(data: dict) -> InstitutionRef | None:
    name = as_line(data.get("display_name"), PLACE_MAX)
    if not name:
        return None
    homepage, dropped = http_url(data.get("homepage_url"))
    return InstitutionRef(
        name=name,
        openalex_id=short_id(data.get("id"), "I"),
        ror=as_ror(data.get("ror")),
        country_code=as_country(data.get("country_code")),
        type=as_text(data.get("type")),
        homepage_url=homepage,
        homepage_dropped=dropped,
    )


def map_institution(payload: dict) -> InstitutionRef:
    """An institution entity (it has the homepage that authorships lack)."""
    institution_id = required_id(payload, "I", "institution")
    ref = _institution_ref(payload)
    if ref is None:
        raise MappingError(f"institution {institution_id} has no display_name")
    return ref


# --- topics


def work_topics(payload: dict) -> list[TopicRef]:
    """Topics (2024+) with their hierarchy when present, else the legacy concepts."""
    topics = [t for t in as_list(payload.get("topics")) if isinstance(t, dict)]
    primary = as_dict(payload.get("primary_topic"))
    if primary and all(t.get("id") != primary.get("id") for t in topics):
        topics.insert(0, primary)
    if not topics:
        return _concepts(payload.get("concepts"), scale=1.0)
    primary_key = topic_key(primary.get("id"))
    refs = [_topic_ref(t, as_float(t.get("score")), primary_key) for t in topics]
    return _unique_topics(refs)


def _topic_ref(data: dict, score: float | None, primary_key: str | None = None) -> TopicRef | None:
    key, name = topic_key(data.get("id")), as_line(data.get("display_name"))
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
    nodes = [as_dict(data.get(level)) for level in _TOPIC_LEVELS]
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
        node_key, node_name = topic_key(node.get("id")), as_line(node.get("display_name"))
        if node_key and node_name:
            parent = TopicRef(key=node_key, name=node_name, kind=level, parent=parent)
    return parent


def map_topic(payload: dict) -> TopicRef:
    """A topic entity (T…, with its subfield > field > domain) or a legacy concept (C…)."""
    if not isinstance(payload, dict):
        raise MappingError(f"topic payload is a {type(payload).__name__}, not a JSON object")
    key, name = topic_key(payload.get("id")), as_line(payload.get("display_name"))
    if key is None or "/" in key:
        raise MappingError(f"payload id {payload.get('id')!r} is not an OpenAlex topic or concept")
    if not name:
        raise MappingError(f"topic {key} has no display_name")
    if key.startswith("openalex:C"):
        return TopicRef(key=key, name=name, kind="concept")
    return _topic_ref(payload, None)


def map_venue(payload: dict) -> VenueRef:
    """A source entity (journal, repository, conference…), with its homepage."""
    source_id = required_id(payload, "S", "source")
    ref = venue_ref(payload, payload.get("host_organization_name"))
    if ref is None:
        raise MappingError(f"source {source_id} has no display_name")
    return ref


def _concepts(items: object, scale: float) -> list[TopicRef]:
    """Legacy concepts; ``scale`` brings author x_concepts (0-100) to the works' 0-1."""
    refs = []
    for item in map(as_dict, as_list(items)):
        concept_id, name = short_id(item.get("id"), "C"), as_line(item.get("display_name"))
        if concept_id and name:
            score = as_float(item.get("score"))
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


# --- authors


def map_author(payload: dict) -> AuthorRecord:
    """An OpenAlex author; the "Deleted Author" placeholder is kept with is_deleted=True."""
    author_id = required_id(payload, "A", "author")
    check_shape(payload, AUTHOR_SHAPE, f"author {author_id}")
    name = as_line(payload.get("display_name"))
    if not name:
        raise MappingError(f"author {author_id} has no display_name")
    return guarded("author", author_id, lambda: _author_record(payload, author_id, name))


def _author_record(payload: dict, author_id: str, name: str) -> AuthorRecord:
    ids = as_dict(payload.get("ids"))
    alternatives = [as_line(n) for n in as_list(payload.get("display_name_alternatives"))]
    return AuthorRecord(
        source=SOURCE,
        external_id=author_id,
        display_name=name,
        openalex_id=author_id,
        orcid=normalize_orcid(payload.get("orcid") or ids.get("orcid")),
        alternative_names=[n for n in distinct(alternatives) if n != name],
        is_deleted=fold(name) == DELETED_AUTHOR,
        last_known_institutions=_last_known(payload),
        affiliations=_affiliations(payload.get("affiliations")),
        works_count=as_int(payload.get("works_count")),
        cited_by_count=as_int(payload.get("cited_by_count")),
        topics=_author_topics(payload),
        updated_at=as_datetime(payload.get("updated_date")),
        **_summary_stats(payload.get("summary_stats")),
        counts_by_year=_author_counts_by_year(payload.get("counts_by_year")),
    )


MEAN_CITEDNESS_MAX = 1e9  # past any real mean: a value above it is not a mean of citations


def _summary_stats(value: object) -> dict:
    """h-index, i10-index and 2-year mean citedness; a value that is not one is unknown."""
    stats = as_dict(value)
    mean = as_float(stats.get("2yr_mean_citedness"))
    return {
        "h_index": as_int(stats.get("h_index")),
        "i10_index": as_int(stats.get("i10_index")),
        "mean_citedness": mean if mean is not None and 0 <= mean <= MEAN_CITEDNESS_MAX else None,
    }


def _is_year(value: object) -> bool:
    year = as_int(value)
    return year is not None and YEAR_MIN <= year <= YEAR_MAX


def _author_counts_by_year(items: object) -> list[dict]:
    """Works and citations per year, oldest first; entries without a year or a count left out."""
    by_year: dict[int, dict] = {}
    for item in map(as_dict, as_list(items)):
        year = as_int(item.get("year"))
        works, citations = as_int(item.get("works_count")), as_int(item.get("cited_by_count"))
        if not _is_year(year) or (works, citations) == (None, None):
            continue
        by_year.setdefault(year, {"year": year, "works": works, "citations": citations})
    return [by_year[year] for year in sorted(by_year)]


def _last_known(payload: dict) -> list[InstitutionRef]:
    items = as_list(payload.get("last_known_institutions"))
    if not items and isinstance(payload.get("last_known_institution"), dict):
        items = [payload["last_known_institution"]]  # schema before mid-2024
    return institution_refs(items)


def _affiliations(items: object) -> list[AffiliationRef]:
    refs = []
    for item in map(as_dict, as_list(items)):
        institution = _institution_ref(as_dict(item.get("institution")))
        if institution:
            years = sorted({y for y in as_list(item.get("years")) if _is_year(y)}, reverse=True)
            refs.append(AffiliationRef(institution=institution, years=years))
    return refs


def _author_topics(payload: dict) -> list[TopicRef]:
    """Author topics score by their work count; legacy x_concepts by share (0-1)."""
    topics = [t for t in as_list(payload.get("topics")) if isinstance(t, dict)]
    if topics:
        return _unique_topics(_topic_ref(t, as_float(t.get("count"))) for t in topics)
    return _concepts(payload.get("x_concepts"), scale=100.0)


def author_candidate(payload: dict) -> dict:
    """What tells namesakes apart in a search result (plain JSON)."""
    institutions = _last_known(payload)
    topics = [t.name for t in _author_topics(payload)[:3]]
    return {
        "id": short_id(payload.get("id"), "A"),
        "display_name": as_line(payload.get("display_name")),
        "orcid": normalize_orcid(payload.get("orcid")),
        "institution": institutions[0].name if institutions else "",
        "works_count": as_int(payload.get("works_count")),
        "cited_by_count": as_int(payload.get("cited_by_count")),
        "topics": topics,
    }

"""What each field of an OpenAlex record must hold, checked before it is mapped.

A record whose known fields hold the wrong kind of value (a title that is a
number, authorships that are a string, a count that is negative, text or past
what a count column holds, a date that is no date) is not imported as far as it
can be read: it becomes an ImportProblem with the whole payload, so staff see
what the source sent instead of a work with its authors or its dates quietly
missing. ``null`` is always allowed (real records have nulls everywhere), and so
are fields not listed here. Only the top level and the authorships are checked:
deeper values are read defensively by the mappers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date

from ingestion.records import MappingError

COUNT_MAX = 2**31 - 1  # a PositiveIntegerField on PostgreSQL
YEAR_MAX = 9999

Check = Callable[[object], str]  # "" when the value fits, else what it is not


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def text(value: object) -> str:
    return "" if isinstance(value, str) else "text"


def obj(value: object) -> str:
    return "" if isinstance(value, dict) else "a JSON object"


def array(value: object) -> str:
    return "" if isinstance(value, list) else "a list"


def objects(value: object) -> str:
    if not isinstance(value, list):
        return "a list"
    return "" if all(v is None or isinstance(v, dict) for v in value) else "a list of JSON objects"


def boolean(value: object) -> str:
    return "" if isinstance(value, bool) else "true or false"


def count(value: object) -> str:
    return "" if _is_int(value) and 0 <= value <= COUNT_MAX else f"a count (0-{COUNT_MAX})"


def year(value: object) -> str:
    return "" if _is_int(value) and 0 <= value <= YEAR_MAX else f"a year (0-{YEAR_MAX})"


def score(value: object) -> str:
    ok = (_is_int(value) or isinstance(value, float)) and math.isfinite(value)
    return "" if ok else "a finite number"


def iso_date(value: object) -> str:
    if isinstance(value, str):
        try:
            date.fromisoformat(value[:10])
            return ""
        except ValueError:
            pass
    return "a date (YYYY-MM-DD)"


def counts_by_year(value: object) -> str:
    if not isinstance(value, list):
        return "a list"
    for item in value:
        if not isinstance(item, dict):
            return "a list of {year, cited_by_count}"
        if year(item.get("year")) or count(item.get("cited_by_count")):
            return "a list of {year, cited_by_count} with a year and a count"
    return ""


WORK_SHAPE: dict[str, Check] = {
    "title": text,
    "display_name": text,
    "doi": text,
    "type": text,
    "language": text,
    "publication_date": iso_date,
    "publication_year": year,
    "created_date": iso_date,
    "updated_date": text,
    "cited_by_count": count,
    "is_retracted": boolean,
    "counts_by_year": counts_by_year,
    "authorships": objects,
    "abstract_inverted_index": obj,
    "primary_location": obj,
    "best_oa_location": obj,
    "host_venue": obj,
    "open_access": obj,
    "ids": obj,
    "primary_topic": obj,
    "locations": array,
    "topics": array,
    "concepts": array,
    "grants": array,
    "awards": array,
    "funders": array,
    "corresponding_author_ids": array,
}
AUTHORSHIP_SHAPE: dict[str, Check] = {
    "author": obj,
    "raw_author_name": text,
    "institutions": array,
    "raw_affiliation_strings": array,
    "raw_affiliation_string": text,
    "affiliations": array,
    "is_corresponding": boolean,
}
AUTHOR_SHAPE: dict[str, Check] = {
    "display_name": text,
    "display_name_alternatives": array,
    "orcid": text,
    "works_count": count,
    "cited_by_count": count,
    "affiliations": array,
    "last_known_institutions": array,
    "last_known_institution": obj,
    "topics": array,
    "x_concepts": array,
    "ids": obj,
    "updated_date": text,
    "counts_by_year": array,
}
TOPIC_SHAPE: dict[str, Check] = {"display_name": text, "score": score, "count": score}


def mismatches(payload: dict, shape: dict[str, Check], prefix: str = "") -> list[str]:
    """What is wrong with the fields of ``payload`` that ``shape`` names, one phrase each."""
    found = []
    for name, check in shape.items():
        value = payload.get(name)
        if value is not None and (wanted := check(value)):
            found.append(f"{prefix}{name} is {_describe(value)}, not {wanted}")
    return found


def check_shape(payload: dict, shape: dict[str, Check], what: str) -> None:
    """Raise MappingError naming every field of ``payload`` that holds the wrong kind of value."""
    found = mismatches(payload, shape)
    if shape is WORK_SHAPE and not found:
        for number, authorship in enumerate(payload.get("authorships") or []):
            if authorship is not None:
                found += mismatches(authorship, AUTHORSHIP_SHAPE, f"authorships[{number}].")
        for number, topic in enumerate(payload.get("topics") or []):
            if isinstance(topic, dict):
                found += mismatches(topic, TOPIC_SHAPE, f"topics[{number}].")
    if found:
        shown = "; ".join(found[:10]) + (f"; and {len(found) - 10} more" if len(found) > 10 else "")
        raise MappingError(f"{what} has values of the wrong type: {shown}")


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if _is_int(value):
        digits = str(value) if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
        return digits
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return f"the text {value[:40]!r}" + ("…" if len(value) > 40 else "")
    return {"dict": "a JSON object", "list": "a list"}.get(type(value).__name__, "a value")

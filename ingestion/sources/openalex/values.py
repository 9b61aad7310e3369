"""Readers of OpenAlex values: real payloads carry nulls where a list or object is expected."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from datetime import date, datetime

from catalogue.identifiers import (
    normalize_openalex_id,
)
from catalogue.text import (
    NAME_MAX,
    clean_line,
)
from ingestion.records import (
    MappingError,
)
from ingestion.sources.common import parse_datetime
from ingestion.sources.shapes import COUNT_MAX

SOURCE = "openalex"


OPENALEX_ID_MAX = 32  # the column every OpenAlex id is kept in


_TOPIC_KEY_RE = re.compile(
    r"^(?:https?://openalex\.org/)?((?:domains|fields|subfields)/\d+|[TtCc]\d+)/?$"
)
_ROR_RE = re.compile(r"^0[a-z0-9]{6}\d{2}$")


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_int(value: object) -> int | None:
    """A whole number that fits a count column (0 to 2**31 - 1), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= COUNT_MAX:
        return value
    return None


def as_float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return number if math.isfinite(number) else None


CODE_MAX = 100  # a code or a short label: a type, a licence, a status


def as_text(value: object, limit: int = CODE_MAX) -> str:
    """A short text (a code, a type, a licence) cleaned as every imported line is, bounded."""
    return clean_line(value, limit)


# A language tag (ISO 639 code and optional subtags: "en", "pt-BR", "zh-Hant").
_LANGUAGE_RE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$")
_ISSN_RE = re.compile(r"^(\d{4})-?(\d{3}[\dX])$")
_COUNTRY_RE = re.compile(r"^[A-Z]{2}$")


def as_language(value: object) -> str:
    """A language tag as the source gives it, or "" for anything that is not one."""
    text = as_text(value, 16)
    return text if _LANGUAGE_RE.match(text) else ""


def as_issn(value: object) -> str:
    """An ISSN as ``1234-567X``, or "" for anything that is not one."""
    match = _ISSN_RE.match(as_text(value, 16).upper())
    return f"{match.group(1)}-{match.group(2)}" if match else ""


def as_country(value: object) -> str:
    """An ISO 3166 two-letter country code in capitals, or ""."""
    text = as_text(value, 2).upper()
    return text if _COUNTRY_RE.match(text) else ""


def as_line(value: object, limit: int = NAME_MAX) -> str:
    """A name, title or place on one line: cleaned, without markup, at most ``limit`` long."""
    return clean_line(value, limit)


def as_date(value: object) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


def as_datetime(value: object) -> datetime | None:
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


def as_ror(value: object) -> str | None:
    """The bare ROR id (``05ppvf150``) from a URL or a bare id."""
    bare = as_text(value).rstrip("/").rsplit("/", 1)[-1].lower()
    return bare if _ROR_RE.match(bare) else None


def topic_key(value: object) -> str | None:
    match = _TOPIC_KEY_RE.match(as_text(value))
    if not match:
        return None
    key = match.group(1)
    return f"openalex:{key if '/' in key else key.upper()}"


def required_id(payload: object, prefix: str, noun: str) -> str:
    if not isinstance(payload, dict):
        raise MappingError(f"{noun} payload is a {type(payload).__name__}, not a JSON object")
    raw = payload.get("id")
    if not raw:
        raise MappingError(f"{noun} payload has no id")
    found = short_id(raw, prefix)
    if not found:
        raise MappingError(f"{noun} payload id {raw!r} is not an OpenAlex {noun} id")
    return found


def guarded(noun: str, ident: str, build: Callable[[], object]):
    """Turn a crash on an odd payload into a MappingError so the batch goes on."""
    try:
        return build()
    except MappingError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise MappingError(f"{noun} {ident} is malformed: {exc!r}") from exc


def distinct(values: Iterable) -> list:
    return [v for v in dict.fromkeys(values) if v]

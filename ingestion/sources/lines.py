"""One line of a JSON Lines file: parsed exactly, or kept unparsed with its digest.

A snapshot imported again is mostly lines already stored. A line whose record id
stands at its start (as in OpenAlex snapshots) can be read as a ``RawLine``: its
id, its bytes and their digest, without parsing. The import compares the digest
with the one stored for that record and parses only the lines that differ, so an
unchanged line costs one hash. ``RawLine.read`` parses it the way the reader
would have, with the same error for a line that is not JSON.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import orjson

from ingestion.records import SourceError
from ingestion.sources.bounds import nested_too_deeply

DIGEST_SIZE = 20  # bytes: 40 hex characters, as ``SourceRecord.line_digest`` holds


def line_digest(line: bytes) -> str:
    """The digest of a line as it stands in its file (surrounding whitespace aside)."""
    return hashlib.blake2b(line.strip(), digest_size=DIGEST_SIZE).hexdigest()


def line_text(line: bytes) -> str:
    """A line as text, whole: a problem keeps its record (bytes that are not UTF-8 as \\xNN)."""
    return line.strip().decode("utf-8", errors="backslashreplace")


@dataclass(slots=True)
class RawLine:
    """A line not parsed yet, known by the id at its start (``key``, as written there)."""

    label: str  # the file, for messages
    number: int  # the line number in the file
    line: bytes
    key: str
    digest: str

    @classmethod
    def of(cls, label: str, number: int, line: bytes, key: str) -> RawLine:
        return cls(label, number, line, key, line_digest(line))

    def read(self) -> tuple[dict | None, SourceError | None]:
        """The record on this line, or the error that says why there is none.

        A line that parses to an object whose ``id`` is not the one at its start
        (the key is given twice) is refused: which of the two it stands for would
        depend on who reads it.
        """
        document, error = parse_line(self.line)
        where, body = f"{self.label} line {self.number}", line_text(self.line)
        if error is not None:
            return None, SourceError(f"{where}: not valid JSON ({error})", body=body)
        if not isinstance(document, dict) or document.get("id") != self.key:
            return None, SourceError(f"{where}: the record gives its id more than once", body=body)
        return document, None


def parse_line(line: bytes) -> tuple[object, ValueError | None]:
    """A line's JSON value, or the error that says why it is not JSON.

    orjson reads integers past 64 bits as floats, losing digits, and refuses a
    lone surrogate escape that Python's ``json`` reads: a line with a run of 20
    digits (any such integer has one), or one orjson refuses, is read by
    ``json``, which keeps every digit. Both refuse NaN, Infinity and numbers too
    large for a float, which no JSON column can hold. A line nested deeper than
    ``bounds.MAX_JSON_DEPTH`` is refused unparsed.
    """
    if deep := nested_too_deeply(line):
        return None, ValueError(deep)
    if _LONG_NUMBER in line.translate(_DIGITS):  # a copy in C: fast beside parsing
        return _parse_exactly(line)
    try:
        return orjson.loads(line), None
    except ValueError as exc:
        document, error = _parse_exactly(line)
        return (document, None) if error is None else (None, exc)


_DIGITS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))  # digits as "0", else " "
_LONG_NUMBER = b"0" * 20  # 2**64 has 20 digits


def _parse_exactly(line: bytes) -> tuple[object, ValueError | None]:
    try:
        return json.loads(line, parse_constant=_refuse, parse_float=_finite), None
    except RecursionError:  # the caller's stack was deep already
        return None, ValueError("nested too deeply")
    except ValueError as exc:
        return None, exc


def _refuse(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value

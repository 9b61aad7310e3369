"""How much reading one recorded file may hold, and how deep its JSON may nest.

A gzipped file may unpack to a thousand times what it weighs, and a line of it
need not end: read whole, a few megabytes of one repeated byte become gigabytes
in memory. So a file is read a bounded line or document at a time:

- one line of JSON Lines holds at most ``IMPORT_MAX_LINE_BYTES``; a longer one
  is skipped (read on to its end in small pieces, never held) and reported;
- a file read as one document (a JSON answer, an Atom feed, a VCR cassette) and
  one response body of a cassette unpack to at most ``IMPORT_MAX_DOCUMENT_BYTES``;
- a file unpacks to at most ``IMPORT_MAX_DECOMPRESSED_BYTES`` in all (the bodies
  of a cassette count too); reading stops there.

JSON nested deeper than ``MAX_JSON_DEPTH`` levels is refused before it is
parsed: the standard library's parser and writer recurse once per level, and
Python stops at 1,000 frames, so a deeper document would fail whoever reads or
writes it next, not just the parser.
"""

from __future__ import annotations

import io
import itertools
import json
import operator
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from django.conf import settings

GZIP_MAGIC = b"\x1f\x8b"
MAX_JSON_DEPTH = 512  # real records nest about 6 levels; json.dumps manages 512 with room
PREVIEW_BYTES = 2000  # of a line too long to keep: enough to see whose record it was
SKIP_CHUNK = 1024 * 1024  # bytes read at a time past the end of a line too long


@dataclass(frozen=True)
class Limits:
    """The size limits in force (see the settings of the same names)."""

    line: int
    document: int
    unpacked: int

    @classmethod
    def current(cls) -> Limits:
        return cls(
            line=settings.IMPORT_MAX_LINE_BYTES,
            document=settings.IMPORT_MAX_DOCUMENT_BYTES,
            unpacked=settings.IMPORT_MAX_DECOMPRESSED_BYTES,
        )


def size_text(size: int) -> str:
    return f"{size:,} bytes"


class TooLarge(ValueError):
    """More bytes than a limit allows; the message names the limit."""


def unpacked_too_large(limit: int) -> TooLarge:
    return TooLarge(
        f"it unpacks to more than {size_text(limit)} (IMPORT_MAX_DECOMPRESSED_BYTES); "
        "the rest is not read"
    )


class Capped:
    """A binary stream that raises ``TooLarge`` once more than ``limit`` bytes came out of it."""

    def __init__(self, stream: BinaryIO, limit: int):
        self._stream, self._left, self.limit = stream, limit, limit

    def readline(self, size: int) -> bytes:
        return self._count(self._stream.readline(size))

    def read(self, size: int) -> bytes:
        return self._count(self._stream.read(size))

    def _count(self, data: bytes) -> bytes:
        self._left -= len(data)
        if self._left < 0:
            raise unpacked_too_large(self.limit)
        return data


class Joined:
    """The lines of ``head`` and then those of ``stream``, as one stream."""

    def __init__(self, head: bytes, stream: BinaryIO):
        self._head, self._stream = io.BytesIO(head), stream

    def readline(self, size: int) -> bytes:
        line = self._head.readline(size)
        if line.endswith(b"\n") or len(line) >= size:
            return line
        return line + self._stream.readline(size - len(line))


@dataclass(frozen=True)
class Overlong:
    """A line longer than ``limit``: its size and its first bytes (the rest was skipped)."""

    size: int
    start: bytes
    limit: int

    def problem(self) -> str:
        return (
            f"a line of {size_text(self.size)}, longer than the {size_text(self.limit)} "
            "IMPORT_MAX_LINE_BYTES allows; skipped"
        )


def next_line(stream, limit: int) -> bytes | Overlong:
    """The next line of ``stream`` (b"" at its end), or ``Overlong`` for one past ``limit``."""
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line
    size, start = len(line), line[:PREVIEW_BYTES]
    del line
    while not line_end(piece := stream.readline(SKIP_CHUNK)):
        size += len(piece)
    return Overlong(size + len(piece), start, limit)


def line_end(piece: bytes) -> bool:
    return not piece or piece.endswith(b"\n")


def lines(stream, limit: int) -> Iterator[bytes | Overlong | TooLarge]:
    """The lines of ``stream`` as ``next_line`` reads them, then, if it stopped a file, the
    ``TooLarge`` that stopped it (so that what came before is kept)."""
    try:
        while line := next_line(stream, limit):
            yield line
    except TooLarge as exc:
        yield exc


def read_document(stream, limit: int, head: bytes = b"") -> tuple[bytes, bool]:
    """``head`` and the rest of ``stream``, up to ``limit`` bytes; whether that was all of it."""
    data = head + stream.read(max(limit + 1 - len(head), 0))
    return data, len(data) <= limit


def document_too_large(limit: int) -> str:
    return f"larger than the {size_text(limit)} IMPORT_MAX_DOCUMENT_BYTES allows; not read"


def gunzip(data: bytes, limit: int) -> bytes:
    """``data`` unpacked (every gzip member of it), or ``TooLarge`` past ``limit`` bytes."""
    out = []
    left = limit
    while data:
        unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
        piece = unpack.decompress(data, left + 1)
        left -= len(piece)
        if left < 0 or unpack.unconsumed_tail:
            raise TooLarge(f"unpacks to more than {size_text(limit)}")
        if not unpack.eof:
            raise EOFError("compressed data ended before the end-of-stream marker was reached")
        out.append(piece)
        data = unpack.unused_data.lstrip(b"\0")  # gzip pads members with NULs at times
    return b"".join(out)


# --- how deep JSON nests

_NOT_BRACKET_OR_QUOTE = bytes(b for b in range(256) if b not in b'"[]{}')
_STRING = re.compile(rb'"[^"]*"')  # in text already rid of escaped quotes and backslashes
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # one up, one down (less one)


def nested_too_deeply(data: bytes | str) -> str:
    """Why ``data`` must not be parsed ("" when it may): JSON nested past ``MAX_JSON_DEPTH``."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, bytes):
        return ""  # not JSON text: the parser says so
    if data.count(b"[") + data.count(b"{") <= MAX_JSON_DEPTH:
        return ""  # the common case: too few brackets to nest that deep
    if json_depth(data) <= MAX_JSON_DEPTH:
        return ""
    return f"nested too deeply (more than {MAX_JSON_DEPTH} levels of arrays and objects)"


def json_depth(data: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets in strings aside).

    Escapes go first (an escaped backslash, then an escaped quote), so that every
    quote left opens or closes a string; then everything but quotes and brackets,
    then the strings. Valid JSON gets its exact depth; a text that is not JSON
    gets a depth no parser would go past before it fails.
    """
    text = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_BRACKET_OR_QUOTE)
    steps = _STRING.sub(b"", text).translate(_STEPS, b'"')
    heights = map(operator.sub, itertools.accumulate(steps), itertools.count(1))
    return max(heights, default=0)


def json_loads(data: bytes | str) -> object:
    """``json.loads``, refusing (ValueError) JSON nested past ``MAX_JSON_DEPTH``."""
    if deep := nested_too_deeply(data):
        raise ValueError(deep)
    try:
        return json.loads(data)
    except RecursionError:  # the caller's stack was deep already
        raise ValueError("nested too deeply") from None

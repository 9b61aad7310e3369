"""The parts of a page drawn for each visitor, left as slots in the page every visitor shares.

A page shared by every visitor (``pages.cache.shared_page``) is drawn once with a
stand-in for each part that depends on the visitor (the account menu, the messages,
a record's follow and claim panels): a ``Slots`` comment. Each visit fills them
with its own parts (``answer``). Filling can also say where each part landed
(``fill_noting``), so that a page kept whole for visitors without a cookie
(``pages.researcher_pages``) is filled again for any other visitor (``refill``),
its parts put in place of those a visitor without a cookie sees.
"""

from __future__ import annotations

import re
import uuid
from typing import NamedTuple

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

# The response's attribute naming where each part landed (``answer``).
SPANS = "_slot_spans"


class Span(NamedTuple):
    """Where a part landed in the filled page: ``html[start:end]``."""

    name: str
    start: int
    end: int


class Slots:
    """Stand-ins for the parts of a page drawn for each visitor: ``{{ slots.account }}``.

    A slot is an HTML comment holding a random token of its own page, so no text
    of a record (a title, a name) can pass for one.
    """

    def __init__(self) -> None:
        self.nonce = uuid.uuid4().hex

    def __getitem__(self, name: str) -> SafeString:
        return mark_safe(f"<!--slot:{self.nonce}:{name}-->")  # noqa: S308 - no outside text


def fill_noting(body: str, nonce: str, parts: dict[str, str]) -> tuple[str, list[Span]]:
    """``body`` with each slot replaced by the part of that name, and where each landed.
    A slot without a part is left as it is."""
    marker = re.compile(f"<!--slot:{re.escape(nonce)}:([^>]*?)-->")
    pieces: list[str] = []
    spans: list[Span] = []
    at = length = 0
    for found in marker.finditer(body):
        part = parts.get(found.group(1))
        if part is None:
            continue
        before = body[at : found.start()]
        pieces += [before, part]
        length += len(before)
        spans.append(Span(found.group(1), length, length + len(part)))
        length += len(part)
        at = found.end()
    pieces.append(body[at:])
    return "".join(pieces), spans


def fill(body: str, nonce: str, parts: dict[str, str]) -> str:
    """``body`` with each slot replaced by the part of that name."""
    return fill_noting(body, nonce, parts)[0]


def refill(html: str, spans: list[Span], parts: dict[str, str]) -> str:
    """A page filled by ``fill_noting`` (``html``, ``spans``) with other ``parts``."""
    pieces, at = [], 0
    for span in spans:
        pieces += [html[at : span.start], parts[span.name]]
        at = span.end
    pieces.append(html[at:])
    return "".join(pieces)


def spans_text(spans: list[Span]) -> str:
    """Spans as kept in a text column: ``account:120:340 messages:560:560``."""
    return " ".join(f"{s.name}:{s.start}:{s.end}" for s in spans)


def spans_read(text: str) -> list[Span] | None:
    """Spans kept by ``spans_text``, or None where none were kept."""
    if not text:
        return None
    spans = []
    for word in text.split():
        name, start, end = word.rsplit(":", 2)
        spans.append(Span(name, int(start), int(end)))
    return spans


def render(request: HttpRequest, parts: dict[str, tuple[str, dict]]) -> dict[str, str]:
    """Each slot's template rendered for this visitor: {name: (template, context)}."""
    return {name: render_to_string(t, context, request) for name, (t, context) in parts.items()}


def visitor_parts(request: HttpRequest, **parts) -> dict[str, str]:
    """The account menu, the messages and ``parts`` ({slot name: (template, context)})
    drawn for this visitor."""
    parts = {"account": ("_account_nav.html", {}), "messages": ("_messages.html", {}), **parts}
    return render(request, parts)


def answer(request: HttpRequest, body: str, nonce: str, **parts) -> HttpResponse:
    """The shared page with the account menu, the messages and ``parts`` drawn for this
    visitor (``visitor_parts``); where they landed is on the answer (``SPANS``)."""
    html, spans = fill_noting(body, nonce, visitor_parts(request, **parts))
    response = HttpResponse(html)
    setattr(response, SPANS, spans)
    return response

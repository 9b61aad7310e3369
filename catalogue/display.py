"""How much of an imported text a page shows (pure functions).

A record may carry a title, a name or an abstract of any length: what the
database keeps is bounded at import, but rows written before that bound, staff
edits and other sources can still be long. Pages, feeds and pictures show at
most these many characters of each kind and end a cut text with "…"; the whole
text stays in the record and its source payload.

``clip`` also drops the characters that only serve to disguise text on screen:
C0/C1 controls (XML 1.0 cannot carry most of them, so one of them turns an Atom
feed into an error) and the bidirectional embedding, override and isolate
controls, which let a name reverse the text that follows it. Right-to-left
scripts need none of them; the browser orders them by itself.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString

from catalogue import safe_html
from catalogue.text import one_line, plain_text

ELLIPSIS = "…"

TITLE_CHARS = 300  # work titles: headings, links, <title>, feeds, exports' file names
NAME_CHARS = 120  # people, raw author names, topics and funders
PLACE_CHARS = 200  # venues, institutions, publishers, affiliations, journal references
ABSTRACT_CHARS = 5000  # the abstract on the work page and in feeds
ABSTRACT_LIST_CHARS = 1500  # the unfolded abstract of a work in a list
PREVIEW_CHARS = 240  # the folded preview of an abstract, and meta descriptions
NOTE_CHARS = 500  # comments, taglines and other short notes

LIMITS = {
    "title": TITLE_CHARS,
    "name": NAME_CHARS,
    "topic": NAME_CHARS,
    "place": PLACE_CHARS,
    "venue": PLACE_CHARS,
    "institution": PLACE_CHARS,
    "abstract": ABSTRACT_CHARS,
    "abstract_list": ABSTRACT_LIST_CHARS,
    "preview": PREVIEW_CHARS,
    "note": NOTE_CHARS,
}

# C0 controls but tab, line feed and carriage return; DEL and the C1 block; the
# bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A cut goes back to the last space when one is this close to the limit.
_WORD_SLACK = 0.8


def limit_of(kind: str | int) -> int:
    """The number of characters shown for ``kind`` (a name from ``LIMITS`` or a number)."""
    if isinstance(kind, int):
        return kind
    try:
        return int(kind)
    except ValueError:
        pass
    try:
        return LIMITS[kind]
    except KeyError:
        raise ValueError(f"no display limit for {kind!r}; known: {', '.join(LIMITS)}") from None


def visible(value: object) -> str:
    """``value`` as text without the characters that hide or disguise text."""
    if value is None:
        return ""
    return _HIDDEN.sub("", str(value))


def cut(text: str, limit: int) -> str:
    """``text`` if at most ``limit`` characters long, else its start and "…" (``limit`` in all)."""
    if len(text) <= limit:
        return text
    head = text[: max(limit - 1, 0)]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space >= limit * _WORD_SLACK:
        head = head[:space]
    return head.rstrip(" \n\t.,;:") + ELLIPSIS


def clip(value: object, kind: str | int) -> str:
    """At most the ``kind``'s number of characters of ``value``, hidden characters dropped."""
    limit = limit_of(kind)
    # Bound the work on huge values before anything scans them whole.
    text = visible(str(value)[: limit * 4] if value is not None else "")
    return cut(text, limit)


def clip_line(value: object, kind: str | int) -> str:
    """Like ``clip``, for markup-bearing text shown on one line (titles in <title>, feeds)."""
    limit = limit_of(kind)
    raw = "" if value is None else str(value)
    return cut(one_line(visible(raw[: limit * 20]), decode=False), limit)


def is_cut(value: object, kind: str | int) -> bool:
    """Whether the plain text of ``value`` is longer than the ``kind``'s limit."""
    limit = limit_of(kind)
    raw = "" if value is None else str(value)
    if len(raw) <= limit:
        return False
    if len(raw) > limit * 20:  # more markup than any real title or abstract carries
        return True
    return len(plain_text(visible(raw), decode=False)) > limit


def title_html(value: object, kind: str | int = "title") -> SafeString:
    """A title as safe inline HTML; past the ``kind``'s limit, as plain text cut with "…"."""
    if not value:
        return safe_html.title_html("")
    if is_cut(value, kind):
        return escape(clip_line(value, kind))
    return safe_html.title_html(visible(value))


def abstract_html(value: object, kind: str | int = "abstract") -> SafeString:
    """An abstract as safe HTML paragraphs; past the ``kind``'s limit, plain text cut with "…"."""
    if not value:
        return safe_html.abstract_html("")
    if is_cut(value, kind):
        limit = limit_of(kind)
        return safe_html.abstract_html(
            cut(plain_text(visible(str(value)[: limit * 20]), decode=False), limit)
        )
    return safe_html.abstract_html(visible(value))


def preview(value: object, words: int) -> tuple[str, bool]:
    """The first ``words`` words of ``value`` as plain text, "…" if cut, and whether it was."""
    raw = "" if value is None else str(value)
    scanned = raw[: words * 100]
    text, was_cut = safe_html.preview_text(visible(scanned), words=words)
    if len(raw) > len(scanned) and not was_cut:
        text, was_cut = text.rstrip(".,;: ") + ELLIPSIS, True
    limit = max(PREVIEW_CHARS, words * 10)  # a "word" may be a whole text without spaces
    if len(text) > limit:
        text, was_cut = cut(text, limit), True
    return text, was_cut

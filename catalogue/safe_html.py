"""Showing imported text as HTML without trusting it (pure functions).

Titles and abstracts arrive as plain text that may still carry markup: the
importers strip what they recognise, but staff edits, older rows and new
sources can bring ``<i>``, ``<sup>``, paragraphs, or hostile ``<script>``,
event-handler attributes and ``javascript:`` links. Whatever comes in:

- text without markup is escaped, its line breaks kept as paragraphs and its
  bare http(s) addresses linked (Django's ``urlize``, which escapes as it goes);
- text with markup goes through nh3, which keeps a few formatting tags with no
  attributes at all, drops everything else, and drops the content of script-like
  elements. A ``<`` that does not open a known tag (``$a<b$`` in LaTeX) is kept
  as a character, so formulas stay readable.

The output is safe to mark safe; nothing in it can run.
"""

from __future__ import annotations

import re

import nh3
from django.utils.html import escape, linebreaks, urlize
from django.utils.safestring import SafeString, mark_safe

from catalogue.text import HTML_TAGS, plain_text

INLINE_TAGS = {"i", "em", "b", "strong", "sub", "sup", "code", "sc", "u"}
BLOCK_TAGS = {"p", "br"}
# Elements whose content is code or hidden matter rather than text: dropped whole.
DROPPED_WITH_CONTENT = {
    "script",
    "style",
    "iframe",
    "object",
    "embed",
    "noscript",
    "template",
    "textarea",
    "title",
    "xmp",
    "noembed",
    "noframes",
    "select",
    "applet",
    "frameset",
    "frame",
}
_RISKY_TAGS = {"base", "details", "video", "audio", "source", "marquee", "dialog", "portal"}
_KNOWN = sorted(set(HTML_TAGS.split()) | DROPPED_WITH_CONTENT | _RISKY_TAGS | INLINE_TAGS)
# A "<" that opens a whole tag we know of (or a namespaced one, as in JATS and MathML),
# closed by ">" before any other "<", or a comment. Any other "<" is a character.
_TAG_START = re.compile(
    r"<(?=!--|/?(?:[a-z][\w.-]*:[\w.-]+|(?:" + "|".join(_KNOWN) + r"))(?:[\s/][^<>]*)?>)",
    re.IGNORECASE,
)
_MARKUP = _TAG_START
_BLANK_LINES = re.compile(r"\n\s*\n+")


def has_markup(value: str) -> bool:
    """Whether ``value`` holds a tag, as opposed to plain text.

    An entity alone is not markup: imports decode entities once, so an "&amp;"
    still in a stored text is what the source said and is shown as such.
    """
    return bool(_MARKUP.search(value))


def _escape_stray_lt(value: str) -> str:
    """Turn every ``<`` that does not open a known tag into ``&lt;``."""
    parts = []
    for index, char in enumerate(value):
        if char == "<" and not _TAG_START.match(value, index):
            parts.append("&lt;")
        else:
            parts.append(char)
    return "".join(parts)


def _clean(value: str, tags: set[str]) -> str:
    return nh3.clean(
        _escape_stray_lt(value),
        tags=tags,
        clean_content_tags=DROPPED_WITH_CONTENT,
        attributes={},
        url_schemes=set(),
        link_rel=None,
        strip_comments=True,
    )


def abstract_html(value: str | None) -> SafeString:
    """An abstract as safe HTML paragraphs."""
    if not value or not value.strip():
        return mark_safe("")
    if not has_markup(value):
        escaped = urlize(value.strip(), nofollow=True, autoescape=True)
        return mark_safe(linebreaks(escaped))  # noqa: S308 - escaped by urlize
    cleaned = _clean(value.strip(), INLINE_TAGS | BLOCK_TAGS)
    if "<p>" not in cleaned:
        paragraphs = [p.strip() for p in _BLANK_LINES.split(cleaned) if p.strip()]
        cleaned = "".join(f"<p>{p.replace(chr(10), '<br>')}</p>" for p in paragraphs)
        # Wrapping may split an inline element across paragraphs; a second pass re-nests it.
        cleaned = _clean(cleaned, INLINE_TAGS | BLOCK_TAGS)
    return mark_safe(cleaned)  # noqa: S308 - nh3 output, no attributes allowed


def title_html(value: str | None) -> SafeString:
    """A title as safe inline HTML on one line (italics, sub- and superscripts kept)."""
    if not value:
        return mark_safe("")
    text = " ".join(value.split())
    if not has_markup(text):
        return escape(text)
    return mark_safe(_clean(text, INLINE_TAGS))  # noqa: S308 - nh3 output


def preview_text(value: str | None, *, words: int) -> tuple[str, bool]:
    """The first ``words`` words of ``value`` as plain text, and whether any were cut."""
    text = " ".join(plain_text(value, decode=False).split())
    split = text.split(" ")
    if len(split) <= words:
        return text, False
    return " ".join(split[:words]).rstrip(".,;:") + "…", True

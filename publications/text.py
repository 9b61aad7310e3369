"""Turning imported markup into plain text (pure functions).

Sources send titles and abstracts with stray markup (``<i>``, ``<sup>``, JATS
and MathML tags, sometimes worse) mixed with plain text that uses ``<`` and
``>`` as symbols (``$a<b$``). We drop script and style blocks whole, drop the
tags of known markup vocabularies, keep every other character, and decode
entities. The result is never trusted as HTML: templates escape it.
"""

from __future__ import annotations

import html
import re

_BLOCKS = re.compile(r"<(script|style|iframe|object)\b.*?(</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
HTML_TAGS = (
    "a abbr b big blockquote body br caption center cite code dd del div dl dt em font h1 h2 h3 "
    "h4 h5 h6 head hr html i img ins kbd label li link mark meta ol p pre q s samp small span "
    "strike strong sub sup table tbody td tfoot th thead title tr tt u ul var embed form input "
    "button svg math mi mo mn msup msub mrow mfrac msqrt mtext"
)
_TAG_NAMES = "|".join(HTML_TAGS.split())
_TAG = re.compile(
    r"</?(?:(?:jats|mml|xhtml|inline-formula|tex-math):[\w.-]+|(?:" + _TAG_NAMES + r"))"
    r"(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)
_BLOCK_TAGS = {"p", "br", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"}
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def plain_text(value: str | None) -> str:
    """Return ``value`` without markup, entities decoded, white space tidied."""
    if not value:
        return ""
    if "<" not in value and "&" not in value:  # the common case: nothing to strip or decode
        return _tidy(value)
    text = _BLOCKS.sub(" ", value)
    text = _TAG.sub(_replace_tag, text)
    return _tidy(html.unescape(text))


def _tidy(text: str) -> str:
    text = _SPACES.sub(" ", text)
    if "\n" not in text:
        return text.strip()
    text = _BLANK_LINES.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.strip().split("\n"))


def _replace_tag(match: re.Match) -> str:
    name = re.match(r"</?([\w:.-]+)", match.group(0)).group(1).lower()
    return " " if name in _BLOCK_TAGS or name.endswith(":p") else ""


def one_line(value: str | None) -> str:
    """Plain text on a single line (titles, names)."""
    return " ".join(plain_text(value).split())

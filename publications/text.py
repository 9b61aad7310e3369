"""Turning imported markup into plain text (pure functions).

Sources send titles and abstracts with stray HTML (``<i>``, ``<sup>``, JATS
tags, sometimes worse). We keep the words and drop every tag; script and style
contents are dropped whole. Templates escape the result when they render it.
"""

from __future__ import annotations

import html
import re

import nh3

_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def plain_text(value: str | None) -> str:
    """Return ``value`` without markup, entities decoded, white space tidied."""
    if not value:
        return ""
    cleaned = html.unescape(nh3.clean(value, tags=set()))
    cleaned = _SPACES.sub(" ", cleaned)
    cleaned = _BLANK_LINES.sub("\n\n", cleaned)
    return "\n".join(line.strip() for line in cleaned.strip().split("\n"))


def one_line(value: str | None) -> str:
    """Plain text on a single line (titles, names)."""
    return " ".join(plain_text(value).split())

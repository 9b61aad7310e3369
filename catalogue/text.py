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

import ftfy

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
    r"(?:[\s/][^<>]*)?>",
    re.IGNORECASE,
)
_BLOCK_TAGS = {"p", "br", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"}
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def plain_text(value: str | None, *, decode: bool = True) -> str:
    """Return ``value`` without markup, entities decoded, white space tidied.

    Imports decode entities once; a stored text is read with ``decode=False`` so
    that an "&amp;" it keeps (a source that encoded twice) is not decoded again.
    """
    if not value:
        return ""
    if "<" not in value and ("&" not in value or not decode):  # nothing to strip or decode
        return _tidy(value)
    text = _strip_markup(value)
    if not decode:
        return _tidy(text)
    text = html.unescape(text)
    if "<" in text:  # entities that spell markup (&lt;script&gt;) are taken as that markup
        text = _strip_markup(text)
    return _tidy(text)


def _strip_markup(text: str) -> str:
    return _TAG.sub(_replace_tag, _BLOCKS.sub(" ", text))


def _tidy(text: str) -> str:
    text = _SPACES.sub(" ", text)
    if "\n" not in text:
        return text.strip()
    text = _BLANK_LINES.sub("\n\n", text)
    return "\n".join(line.strip() for line in text.strip().split("\n"))


def _replace_tag(match: re.Match) -> str:
    name = re.match(r"</?([\w:.-]+)", match.group(0)).group(1).lower()
    return " " if name in _BLOCK_TAGS or name.endswith(":p") else ""


def one_line(value: str | None, *, decode: bool = True) -> str:
    """Plain text on a single line (titles, names)."""
    return " ".join(plain_text(value, decode=decode).split())


# Cleaning and bounding imported text ----------------------------------------
#
# Every text a mapper stores goes through ``clean``: NUL cannot be stored in a
# PostgreSQL text or jsonb value, most C0 controls cannot be written in XML 1.0
# (one of them makes an Atom feed unreadable), and none of them, nor the C1
# block, means anything in a title or a name. Tab and line feed are kept; a
# carriage return becomes a line feed (CR LF one line feed), so lines never run
# together. The controls that are white space to Python (VT, FF, the separators
# U+001C-U+001F, NEL) become a space, the others go. Lone surrogates are not
# characters at all and cannot be encoded: they go too. So do the bidirectional
# embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which only
# serve to show text in another order than it is written (right-to-left scripts
# need none of them), as catalogue.display drops them from older rows.
#
# Invisible format characters go as well: they only hide a difference between
# two texts that read the same ("Zed\u200b Roe" is not "Zed Roe" to a search or
# a comparison), and a title made of nothing else is no title. These are the
# soft hyphen U+00AD (a hyphenation hint), the zero-width space U+200B, the word
# joiner and invisible operators U+2060-U+2064, the deprecated format controls
# U+206A-U+206F, the byte order mark U+FEFF, the interlinear annotation marks
# U+FFF9-U+FFFB and the tag characters U+E0000-U+E007F (an England flag
# emoji is left as a plain black flag).
#
# Kept: the zero-width joiner and non-joiner (U+200D, U+200C), which Persian,
# the Indic scripts and emoji sequences need between two characters; a joiner
# anywhere else (at an edge, beside a space or an ASCII character, beside
# another joiner) joins nothing and goes. Kept too: the left-to-right and
# right-to-left marks (U+200E, U+200F, U+061C), which a title mixing scripts
# may need to show its punctuation in place; variation selectors and the
# Mongolian separators, which are parts of their characters.
#
# Text that was written as UTF-8 and read as Latin-1 or Windows-1252 somewhere
# upstream ("SÃ³lrÃºn EinarsdÃ³ttir") is repaired with ftfy, which undoes only
# sequences that cannot be real text. It is told not to touch anything else:
# HTML entities are decoded once, by ``plain_text``, and quotes, ligatures and
# widths stay as the source wrote them.

_CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])
_INVISIBLE = "\u00ad\u200b\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f"
_UNWANTED = re.compile(
    f"[{re.escape(_CONTROLS)}\u202a-\u202e\u2066-\u2069\ud800-\udfff{_INVISIBLE}]"
)
# The controls ASCII text can hold: a class this small is searched faster than
# _UNWANTED's (0.34 against 0.49 µs a title), and most imported text is ASCII.
_ASCII_CONTROLS = re.compile(f"[{re.escape(''.join(c for c in _CONTROLS if c.isascii()))}]")
# A joiner is kept only between two characters that are neither ASCII, white
# space nor joiners: between the letters of a script (or emoji) that use it.
_JOINABLE = r"[^\x00-\x7f\s\u200c\u200d]"
_STRAY_JOINER = re.compile(f"(?<!{_JOINABLE})[\u200c\u200d]|[\u200c\u200d](?!{_JOINABLE})")
_AS_SPACE = {c for c in _CONTROLS if c.isspace() and c != "\r"}


_FTFY = ftfy.TextFixerConfig(
    unescape_html=False,
    remove_terminal_escapes=False,
    fix_c1_controls=False,
    fix_latin_ligatures=False,
    fix_character_width=False,
    uncurl_quotes=False,
    fix_line_breaks=False,
    fix_surrogates=False,
    remove_control_chars=False,
    normalization=None,
    explain=False,
)


def clean(value: object) -> str:
    """``value`` with mojibake repaired, without NUL, C0/C1 and bidi controls, lone surrogates
    and invisible format characters (see above).

    "" unless ``value`` is a string.
    """
    if not isinstance(value, str):
        return ""
    if value.isascii():  # mojibake, format characters and joiners are all non-ASCII
        return _without_unwanted(value) if _ASCII_CONTROLS.search(value) else value
    value = _without_unwanted(_repaired(value))
    if "\u200c" in value or "\u200d" in value:
        value = _STRAY_JOINER.sub("", value)
    return value


def _without_unwanted(value: str) -> str:
    if not _UNWANTED.search(value):  # the common case: nothing to drop
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return _UNWANTED.sub(lambda m: " " if m.group(0) in _AS_SPACE else "", value)


# A C1 control is part of mojibake only right after the character that a UTF-8 lead
# or continuation byte reads as in Latin-1; anywhere else it is a control on its own.
_LONE_C1 = re.compile("(?<![\xc2-\xf4\x80-\xbf])[\x80-\x9f]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _repaired(value: str) -> str:
    value = _LONE_C1.sub(_control_replacement, value)
    if _SURROGATES.search(value):
        return value  # lone surrogates cannot be encoded; they are dropped below instead
    return ftfy.fix_text(value, _FTFY)


def _control_replacement(match: re.Match) -> str:
    return " " if match.group(0) in _AS_SPACE else ""


# What the database keeps of an imported text, at most. Generous: the longest
# real titles (conference proceedings with every paper listed) run to about
# 1,000 characters and abstracts to about 10,000 (some records carry a whole
# introduction); nothing real comes near these, and a payload that does is kept
# whole in its source record. Names and places match the columns that hold them.
TITLE_MAX = 2_000
ABSTRACT_MAX = 50_000
COMMENTS_MAX = 5_000  # arXiv comments ("12 pages, 3 figures, accepted at ...")
AFFILIATION_MAX = 5_000  # every raw affiliation string of one authorship, joined
NAME_MAX = 300  # Author.display_name, Topic.name
PLACE_MAX = 500  # venue, institution, publisher and funder names, raw names, journal_ref
AWARD_MAX = 200  # Grant.award_id
URL_MAX = 500  # every URL column
ELLIPSIS = "…"
# How much of one imported string is ever read: markup costs at most a few times
# the text it wraps, and no real text comes near this. A stored source payload
# keeps each string to this length (ingestion.ingest.payloads), so mapping it
# again reads exactly what the first mapping read.
TEXT_WINDOW = 65_536


def window(value: str, limit: int) -> str:
    """The part of ``value`` that a text of at most ``limit`` characters is made from."""
    return value[: min(limit * 20, TEXT_WINDOW)]


def bounded(text: str, limit: int) -> str:
    """``text`` if at most ``limit`` characters long, else its start and "…" (``limit`` in all)."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def clean_line(value: object, limit: int) -> str:
    """A one-line text (title, name, place) cleaned, without markup, at most ``limit`` long."""
    if not isinstance(value, str):
        return ""
    return bounded(one_line(clean(window(value, limit))), limit)


def clean_text(value: object, limit: int) -> str:
    """A multi-line text (abstract, comments) cleaned, without markup, at most ``limit`` long."""
    if not isinstance(value, str):
        return ""
    return bounded(plain_text(clean(window(value, limit))), limit)


def clean_abstract(value: object, limit: int) -> str:
    """An abstract cleaned as ``clean_text`` does, without a leading label or site boilerplate."""
    if not isinstance(value, str):
        return ""
    return bounded(without_boilerplate(plain_text(clean(window(value, limit)))), limit)


# What publishers' pages put around an abstract and scrapers keep: an "Abstract"
# heading, cookie and consent notices, copyright lines. Only the heading at the
# very start and whole sentences at either end are dropped, so an abstract that
# is about cookies or copyright keeps its own sentences.
_LABEL = re.compile(
    r"^(?:abstract|summary)(?:\s*[:.\u2014\u2013-]+\s*|\s*\n\s*|\s+(?=(?-i:[A-Z0-9(\"\u201c])))",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_COOKIE = re.compile(r"\bcookies?\b", re.IGNORECASE)
_SITE_NOTICE = re.compile(
    r"\b(?:we use|we and our partners|this (?:web)?site|our (?:web)?site|by continuing"
    r"|you agree|you consent|accept(?: all)? cookies|cookie (?:settings|policy|preferences|notice)"
    r"|(?:your|the) (?:browser|experience))\b",
    re.IGNORECASE,
)
# Two patterns, not one alternation: what may only open a sentence is matched at
# its start, the rest searched for; one pattern mixing "^" and "\b" alternatives
# is tried at every position and cost four times as much on each sentence.
_BOILERPLATE_START = re.compile(
    r"\u00a9|\(c\)|copyright\b"
    r"|(?:access through your institution|get full access|sign in|log in)\b",
    re.IGNORECASE,
)
_BOILERPLATE_ANYWHERE = re.compile(
    r"\b(?:all rights reserved|this article is protected by copyright|published by elsevier"
    r"|enable javascript|javascript is (?:disabled|required))\b",
    re.IGNORECASE,
)


def _is_boilerplate(sentence: str) -> bool:
    if _COOKIE.search(sentence) and _SITE_NOTICE.search(sentence):
        return True
    return bool(_BOILERPLATE_START.match(sentence) or _BOILERPLATE_ANYWHERE.search(sentence))


def without_boilerplate(text: str) -> str:
    """``text`` without a leading "Abstract" label and boilerplate sentences at its ends."""
    text = text.strip()
    stripped = _LABEL.sub("", text, count=1)
    if stripped.strip():
        text = stripped.strip()
    return "\n\n".join(p for p in _trim_paragraphs(text.split("\n\n")) if p)


def _trim_paragraphs(paragraphs: list[str]) -> list[str]:
    """Drop boilerplate sentences from the front of the first paragraph that keeps
    any, and from the back of the last; paragraphs left empty go with them."""
    while paragraphs:
        first = _trimmed(paragraphs[0], from_start=True)
        if first:
            paragraphs[0] = first
            break
        paragraphs.pop(0)
    while paragraphs:
        last = _trimmed(paragraphs[-1], from_start=False)
        if last:
            paragraphs[-1] = last
            break
        paragraphs.pop()
    return paragraphs


def _trimmed(paragraph: str, *, from_start: bool) -> str:
    sentences = _SENTENCE_END.split(paragraph.strip())
    step = 0 if from_start else -1
    while sentences and _is_boilerplate(sentences[step]):
        sentences.pop(step)
    return " ".join(sentences)

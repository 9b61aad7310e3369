"""LaTeX in titles and names, both ways (pylatexenc does the encoding).

arXiv records carry LaTeX (``$B^0_s \\to \\mu^+\\mu^-$``, ``{\\"o}``); OpenAlex
records carry Unicode. Exports want Unicode text for RIS and CSL-JSON and
LaTeX that prints as the text for BibTeX.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.latexencode import (
    RULE_CALLABLE,
    UnicodeToLatexConversionRule,
    UnicodeToLatexEncoder,
)
from pylatexenc.macrospec import MacroSpec

# A math span, a command, an accent command or a braced command: text written in LaTeX.
_LATEX_MARKS = re.compile(r"\$[^$]+\$|\\[a-zA-Z]{2,}|\\[\"'`^~=.][a-zA-Z{]|\{\\")
_MATH_SPAN = re.compile(r"\$[^$]+\$")
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")
# Characters nobody types in a title: controls, and invisible format characters
# (zero-width, bidirectional overrides) that reorder or hide what follows.
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}

_TEXT_MACROS = get_default_latex_context_db()
_TEXT_MACROS.add_context_category(
    "braces",
    prepend=True,
    macros=[
        MacroTextSpec(name, text)
        for name, text in (
            ("textbraceleft", "{"),
            ("textbraceright", "}"),
            # The ASCII characters themselves, not the spacing accents U+02C6 and U+02DC.
            ("textasciicircum", "^"),
            ("textasciitilde", "~"),
        )
    ],
)
_TEXT_MACROS.add_context_category(
    "links-and-files",
    prepend=True,
    macros=[
        # A link reads as its text; pylatexenc's own form adds the address.
        MacroTextSpec("href", "%(2)s"),
        # A file is never read: the name of one in a title is not text either.
        MacroTextSpec("input", ""),
        MacroTextSpec("include", ""),
    ],
)
_TO_TEXT = LatexNodes2Text(math_mode="text", latex_context=_TEXT_MACROS)

# The parser's view of the same macros: pylatexenc's parser knows \url but not
# \href, so without this \href's two arguments were never read as arguments.
_PARSE_MACROS = latexwalker.get_default_latex_context_db()
_PARSE_MACROS.add_context_category("links", prepend=True, macros=[MacroSpec("href", "{{")])


def visible_text(value: str) -> str:
    """``value`` on one line, without control or invisible format characters."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in value
        if ch.isspace() or unicodedata.category(ch) not in _INVISIBLE
    )
    return " ".join(kept.split())


def looks_like_latex(value: str, *, from_arxiv: bool = False) -> bool:
    """Whether ``value`` is written in LaTeX: a math span anywhere, or commands in an arXiv text.

    A backslash alone proves nothing in a text from elsewhere ("C:\\Windows").
    """
    if _MATH_SPAN.search(value):
        return True
    return from_arxiv and bool(_LATEX_MARKS.search(value))


# A list export reads each title twice (its key, then its entry): the second is free.
@lru_cache(maxsize=2048)
def latex_to_text(value: str) -> str:
    """Unicode text for LaTeX: ``$\\alpha$-decay`` -> ``α-decay``.

    Text that pylatexenc cannot read (an unclosed ``$\\sqrt[$``, thousands of
    nested braces) stays as it was written: a title is never lost to its markup.
    """
    # A bare % starts a comment in LaTeX and a bare & aligns columns; in a title
    # they mean per cent and "and", as their writer meant them.
    try:
        text = _TO_TEXT.latex_to_text(
            _BARE_SPECIAL.sub(r"\\\1", value), latex_context=_PARSE_MACROS
        )
    except Exception:  # noqa: BLE001 - pylatexenc raises IndexError, KeyError, RecursionError...
        text = value
    return visible_text(text)


def as_text(value: str, *, from_arxiv: bool = False) -> str:
    """The text a reader sees: LaTeX converted when ``value`` is LaTeX, else kept as given."""
    value = visible_text(value)
    if looks_like_latex(value, from_arxiv=from_arxiv):
        return latex_to_text(value)
    return value


_BRACE_COMMANDS = {"{": r"{\textbraceleft}", "}": r"{\textbraceright}"}
_ENCODER_OPTIONS = {
    "non_ascii_only": False,
    "unknown_char_policy": "keep",
    "unknown_char_warning": False,
    "replacement_latex_protection": "braces-all",
}
_DEFAULT_TO_LATEX = UnicodeToLatexEncoder(**_ENCODER_OPTIONS)


@lru_cache(maxsize=8192)
def _lossless_latex(char: str) -> str | None:
    """The LaTeX for ``char`` when it reads back as ``char`` (Greek Ε is not the letter E)."""
    latex = _DOTLESS_UNDER_ACCENT.sub(r"\1{\2}", _DEFAULT_TO_LATEX.unicode_to_latex(char))
    return latex if _TO_TEXT.latex_to_text(latex) == char else None


# An accent over a dotless i or j (``{\"\i}``): biber reads it back as the dotless letter
# and a lone combining accent, which pdflatex cannot set; over the plain letter it reads
# back as the one accented letter (ï).
_DOTLESS_UNDER_ACCENT = re.compile(r"(\\[\"'`^~=.uvH])\\([ij])\b")


def _braces_and_lossless(text: str, position: int) -> tuple[int, str] | None:
    char = text[position]
    if char in _BRACE_COMMANDS:
        # BibTeX counts a brace even after a backslash: one unmatched \{ would
        # swallow the rest of the file, so a brace is written as a command.
        return 1, _BRACE_COMMANDS[char]
    if char.isascii():
        return None  # the default rules escape the specials
    return 1, _lossless_latex(char) or _nearest_latex(char)


@lru_cache(maxsize=8192)
def _nearest_latex(char: str) -> str:
    """The closest LaTeX for a character with no faithful form, else the character itself.

    pdflatex stops at a symbol it cannot set (√, the hyphen U+2010, a lone combining
    accent): its nearest command (``\\sqrt{}``, ``-``) prints instead, and a lone accent
    is left out. A letter of a
    script LaTeX has no command for stays itself, for UTF-8 BibTeX and biber to read.
    """
    kind = unicodedata.category(char)[0]
    if kind in "LN":
        return char
    if kind == "M":  # an accent no letter before it takes (text is composed first)
        return ""
    return _DEFAULT_TO_LATEX.unicode_to_latex(char)


_TO_LATEX = UnicodeToLatexEncoder(
    conversion_rules=[
        UnicodeToLatexConversionRule(RULE_CALLABLE, _braces_and_lossless, "none"),
        "defaults",
    ],
    **_ENCODER_OPTIONS,
)


@lru_cache(maxsize=4096)  # a researcher's list names the same people again and again
def text_to_latex(value: str) -> str:
    """LaTeX that prints ``value``: specials escaped, other characters as commands."""
    # Composed first: "u" and a combining diaeresis are the one letter "ü", which LaTeX has.
    return _TO_LATEX.unicode_to_latex(unicodedata.normalize("NFC", visible_text(value)))

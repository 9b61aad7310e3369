"""LaTeX in titles and names, both ways (pylatexenc does the encoding).

arXiv records carry LaTeX (``$B^0_s \\to \\mu^+\\mu^-$``, ``{\\"o}``); OpenAlex
records carry Unicode. Exports want Unicode text for RIS and CSL-JSON and
LaTeX that prints as the text for BibTeX.
"""

from __future__ import annotations

import re
import unicodedata

from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexencode import UnicodeToLatexEncoder

# A math span, a command, an accent command or a braced command: text written in LaTeX.
_LATEX_MARKS = re.compile(r"\$[^$]+\$|\\[a-zA-Z]{2,}|\\[\"'`^~=.][a-zA-Z{]|\{\\")
_MATH_SPAN = re.compile(r"\$[^$]+\$")
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")
# Characters nobody types in a title: controls, and invisible format characters
# (zero-width, bidirectional overrides) that reorder or hide what follows.
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn"}

_TO_TEXT = LatexNodes2Text(math_mode="text")
_TO_LATEX = UnicodeToLatexEncoder(
    non_ascii_only=False,
    unknown_char_policy="keep",
    unknown_char_warning=False,
    replacement_latex_protection="braces-all",
)


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


def latex_to_text(value: str) -> str:
    """Unicode text for LaTeX: ``$\\alpha$-decay`` -> ``α-decay``."""
    # A bare % starts a comment in LaTeX and a bare & aligns columns; in a title
    # they mean per cent and "and", as their writer meant them.
    text = _TO_TEXT.latex_to_text(_BARE_SPECIAL.sub(r"\\\1", value))
    return visible_text(text)


def as_text(value: str, *, from_arxiv: bool = False) -> str:
    """The text a reader sees: LaTeX converted when ``value`` is LaTeX, else kept as given."""
    value = visible_text(value)
    if looks_like_latex(value, from_arxiv=from_arxiv):
        return latex_to_text(value)
    return value


def text_to_latex(value: str) -> str:
    """LaTeX that prints ``value``: specials escaped, other characters as commands."""
    return _TO_LATEX.unicode_to_latex(visible_text(value))

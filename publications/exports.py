"""Citation exports of one work: BibTeX and RIS (pure functions over a loaded Work).

Both take a work with its authorships (and their authors) and venue loaded, as
``selectors.work_page`` returns it, and never query on their own beyond that.
"""

from __future__ import annotations

import re

from publications.display import web_url
from publications.identifiers import fold
from publications.models import Work
from publications.text import one_line, plain_text

BIBTEX_CONTENT_TYPE = "application/x-bibtex; charset=utf-8"
RIS_CONTENT_TYPE = "application/x-research-info-systems; charset=utf-8"

_BIBTEX_TYPES = {
    Work.Type.ARTICLE: "article",
    Work.Type.REVIEW: "article",
    Work.Type.BOOK: "book",
    Work.Type.BOOK_CHAPTER: "incollection",
    Work.Type.DISSERTATION: "phdthesis",
}
_RIS_TYPES = {
    Work.Type.ARTICLE: "JOUR",
    Work.Type.REVIEW: "JOUR",
    Work.Type.PREPRINT: "UNPB",
    Work.Type.BOOK: "BOOK",
    Work.Type.BOOK_CHAPTER: "CHAP",
    Work.Type.DATASET: "DATA",
    Work.Type.DISSERTATION: "THES",
}
# Characters TeX treats as commands; each becomes text that prints as itself.
_TEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_TEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _TEX_ESCAPES))
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PARTICLES = {
    "van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le", "ter",
    "ten", "bin", "ibn", "al", "dos", "das", "do", "zu",
}  # fmt: skip
# Letters that Unicode does not decompose into an ASCII letter and a mark.
_ASCII_LETTERS = str.maketrans(
    {"æ": "ae", "ø": "o", "ß": "ss", "œ": "oe", "ł": "l", "đ": "d", "þ": "th", "ð": "d", "ı": "i"}
)


def author_names(work: Work) -> list[str]:
    """Author names in order, as the record gives them."""
    names = []
    for authorship in work.authorships.all():
        name = one_line(authorship.author.display_name or authorship.raw_name, decode=False)
        if name:
            names.append(name)
    return names


def family_given(name: str) -> tuple[str, str]:
    """Split a display name into (family, given): "Ada M. Lovelace" -> ("Lovelace", "Ada M.")."""
    if "," in name:
        family, given = name.split(",", 1)
        return family.strip(), given.strip()
    words = name.split()
    if len(words) < 2 or is_corporate(name):
        return name.strip(), ""
    # Particles belong to the family name: "Ludwig van Beethoven".
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


def is_corporate(name: str) -> bool:
    """A name with "and" in it names a group ("Barnes and Noble"), kept whole."""
    return bool(re.search(r"\band\b", name, re.IGNORECASE))


# BibTeX ----------------------------------------------------------------------


def tex_escape(value: str) -> str:
    """Text that TeX prints as given: special characters escaped, control characters dropped."""
    text = " ".join(_CONTROL.sub(" ", value).split())
    return _TEX_SPECIAL.sub(lambda m: _TEX_ESCAPES[m.group(0)], text)


def _bibtex_name(name: str) -> str:
    if is_corporate(name):  # unbraced, its "and" would split it into two authors
        return "{" + tex_escape(name) + "}"
    family, given = family_given(name)
    family, given = tex_escape(family), tex_escape(given)
    return f"{family}, {given}" if given else family


def citation_key(work: Work) -> str:
    """A key such as ``pekhimenko2021rlscope``: first author's surname, year, first title word."""
    names = author_names(work)
    surname = _key_word(family_given(names[0])[0]) if names else "anon"
    stop = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "towards"}
    # Words as written, so "RL-Scope:" gives "rlscope" rather than "rl".
    words = [_key_word(w) for w in one_line(work.title, decode=False).split()]
    words = [w for w in words if w and w not in stop]
    word = words[0] if words else "work"
    return f"{surname}{work.publication_year or ''}{word}"[:60]


def _key_word(text: str) -> str:
    return fold(text.lower().translate(_ASCII_LETTERS)).replace(" ", "")


def _bibtex_fields(work: Work) -> list[tuple[str, str]]:
    kind = _BIBTEX_TYPES.get(work.type, "misc")
    names = author_names(work)
    fields = [("title", "{" + tex_escape(one_line(work.title, decode=False)) + "}")]
    if names:
        fields.append(("author", " and ".join(_bibtex_name(n) for n in names)))
    venue = work.venue.name if work.venue_id and work.venue else ""
    venue_field = {"article": "journal", "incollection": "booktitle"}.get(kind)
    if venue and venue_field:
        fields.append((venue_field, tex_escape(venue)))
    elif venue and kind in ("book", "misc"):
        fields.append(("howpublished", tex_escape(venue)))
    if work.venue_id and work.venue and work.venue.publisher and kind in ("book", "incollection"):
        fields.append(("publisher", tex_escape(work.venue.publisher)))
    if work.publication_year:
        fields.append(("year", str(work.publication_year)))
    if work.publication_date:
        fields.append(("month", work.publication_date.strftime("%b").lower()))
    if work.doi:
        fields.append(("doi", tex_escape(work.doi)))
    if work.arxiv_id:
        fields += [("eprint", tex_escape(work.arxiv_id)), ("archiveprefix", "arXiv")]
        if work.arxiv_primary_category:
            fields.append(("primaryclass", tex_escape(work.arxiv_primary_category)))
    url = _url(work)
    if url:
        fields.append(("url", tex_escape(url)))
    if work.journal_ref:
        fields.append(("note", tex_escape(work.journal_ref)))
    if work.abstract:
        fields.append(("abstract", tex_escape(plain_text(work.abstract, decode=False))))
    return fields


def to_bibtex(work: Work) -> str:
    """One BibTeX entry for ``work``; every value braced and escaped."""
    kind = _BIBTEX_TYPES.get(work.type, "misc")
    lines = [f"@{kind}{{{citation_key(work)},"]
    fields = _bibtex_fields(work)
    for index, (name, value) in enumerate(fields):
        comma = "," if index < len(fields) - 1 else ""
        lines.append(f"  {name} = {{{value}}}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# RIS -------------------------------------------------------------------------


def ris_value(value: str) -> str:
    """A RIS value: one line, no control characters."""
    return " ".join(_CONTROL.sub(" ", value).split())


def _ris_date(work: Work) -> str:
    if work.publication_date:
        return work.publication_date.strftime("%Y/%m/%d/")
    return f"{work.publication_year}///" if work.publication_year else ""


def _ris_lines(work: Work) -> list[tuple[str, str]]:
    lines = [("TY", _RIS_TYPES.get(work.type, "GEN"))]
    lines += [("AU", ", ".join(p for p in family_given(n) if p)) for n in author_names(work)]
    lines.append(("TI", one_line(work.title, decode=False)))
    if work.venue_id and work.venue:
        lines.append(("T2", work.venue.name))
        if work.venue.publisher:
            lines.append(("PB", work.venue.publisher))
    if work.publication_year:
        lines.append(("PY", str(work.publication_year)))
    if date := _ris_date(work):
        lines.append(("DA", date))
    if work.abstract:
        lines.append(("AB", plain_text(work.abstract, decode=False)))
    if work.doi:
        lines.append(("DO", work.doi))
    if url := _url(work):
        lines.append(("UR", url))
    if pdf := web_url(work.pdf_url):
        lines.append(("L1", pdf))
    if work.arxiv_id:
        lines.append(("AN", f"arXiv:{work.arxiv_id}"))
    if work.comments:
        lines.append(("N1", work.comments))
    if work.language:
        lines.append(("LA", work.language))
    for topic in getattr(work, "page_topics", []):
        lines.append(("KW", topic.name))
    return lines


def to_ris(work: Work) -> str:
    """One RIS record for ``work`` (CRLF line ends, as the format asks)."""
    lines = [f"{tag}  - {ris_value(value)}" for tag, value in _ris_lines(work) if ris_value(value)]
    lines.append("ER  - ")
    return "\r\n".join(lines) + "\r\n"


def _url(work: Work) -> str:
    if work.doi:
        return f"https://doi.org/{work.doi}"
    if work.arxiv_id:
        return f"https://arxiv.org/abs/{work.arxiv_id}"
    return web_url(work.landing_url)


def filename(work: Work, extension: str) -> str:
    """An ASCII file name for the download: the work's slug and the extension."""
    return f"{work.slug[:60] or 'work'}-{work.pk}.{extension}"

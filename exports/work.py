"""Citation exports of one work: BibTeX, RIS and CSL-JSON (pure functions over a loaded Work).

Each takes a work with its authorships (and their authors) and venue loaded, as
``selectors.work_page`` returns it, and never queries on its own beyond that.
Text is Unicode for RIS and CSL-JSON (arXiv LaTeX converted) and LaTeX for
BibTeX; identifiers (DOI, URL, eprint) are written as they are, never escaped,
because reference managers read those fields verbatim. Whole lists are in
``exports.lists``.
"""

from __future__ import annotations

import re

from catalogue import entry_types
from catalogue.dates import PartialDate
from catalogue.identifiers import doi_url, fold
from catalogue.links import web_url
from catalogue.models import Source, Work
from catalogue.tex import as_text, text_to_latex, visible_text
from catalogue.text import one_line, plain_text
from exports.personal_names import family_given, is_corporate

BIBTEX_CONTENT_TYPE = "application/x-bibtex; charset=utf-8"
RIS_CONTENT_TYPE = "application/x-research-info-systems; charset=utf-8"
CSL_CONTENT_TYPE = "application/vnd.citationstyles.csl+json; charset=utf-8"

# Letters that Unicode does not decompose into an ASCII letter and a mark.
_ASCII_LETTERS = str.maketrans(
    {"æ": "ae", "ø": "o", "ß": "ss", "œ": "oe", "ł": "l", "đ": "d", "þ": "th", "ð": "d", "ı": "i"}
)


def author_names(work: Work) -> list[str]:
    """Author names in order, as the record gives them (arXiv's LaTeX accents as letters)."""
    names = []
    arxiv_names = from_arxiv(work, "authors")
    for entry in work.byline():
        shown = entry.author.display_name if entry.author else ""
        name = one_line(shown or entry.raw_name, decode=False)
        name = as_text(name, from_arxiv=arxiv_names)
        if name:
            names.append(name)
    return names


def title_text(work: Work) -> str:
    """The title as a reader sees it: one line, arXiv's LaTeX turned into Unicode."""
    return as_text(one_line(work.title, decode=False), from_arxiv=from_arxiv(work, "title"))


def abstract_text(work: Work) -> str:
    """The abstract as plain Unicode text on one line."""
    text = plain_text(work.abstract, decode=False)
    return as_text(text, from_arxiv=from_arxiv(work, "abstract"))


def from_arxiv(work: Work, field: str) -> bool:
    """Whether ``field`` came from arXiv (and so may be written in LaTeX)."""
    source = (work.provenance or {}).get(field) if isinstance(work.provenance, dict) else None
    return source == Source.ARXIV or (source is None and bool(work.arxiv_id))


def is_preprint(work: Work) -> bool:
    """A preprint, or an arXiv record that names no journal (see ``entry_types``)."""
    return entry_types.is_preprint(work)


def year(work: Work) -> int | None:
    """The one publication year the site shows for ``work``."""
    return work.publication_year


def _date(work: Work) -> PartialDate | None:
    """The publication date as precisely as the record gives it: year, month or day."""
    return work.published


# BibTeX ----------------------------------------------------------------------


def tex_escape(value: str) -> str:
    """LaTeX that prints ``value`` as given: specials escaped, accents as commands."""
    return text_to_latex(value)


# Characters that would unbalance or escape a verbatim field, percent-encoded as in a URL.
_VERBATIM_UNSAFE = re.compile(r"[{}\\\s]")


def verbatim(value: str) -> str:
    """A DOI, URL or eprint as written: a ``_`` stays a ``_`` (doi and url are verbatim fields)."""
    text = visible_text(value)
    return _VERBATIM_UNSAFE.sub(lambda m: f"%{ord(m.group(0)):02X}", text)


def _bibtex_name(name: str) -> str:
    if is_corporate(name):  # unbraced, its "and" would split it into two authors
        return "{" + tex_escape(name) + "}"
    family, given = family_given(name)
    family, given = tex_escape(family), tex_escape(given)
    return f"{family}, {given}" if given else family


def citation_key(work: Work) -> str:
    """A key such as ``pekhimenko2021rlscope``: first author's surname, year, first title word.

    Two works can share it; a list export suffixes them (``list_exports.unique_keys``).
    """
    names = author_names(work)
    return base_key(names[0] if names else "", year(work), title_text(work))


_KEY_STOP = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "towards"}


def base_key(first_author: str, year: int | None, title: str) -> str:
    """The key before any suffix, from the first author's name, the year and the title."""
    surname = _key_word(family_given(first_author)[0]) if first_author else ""
    # Words as written, so "RL-Scope:" gives "rlscope" rather than "rl".
    words = [_key_word(w) for w in title.split()]
    words = [w for w in words if w and w not in _KEY_STOP]
    word = words[0][:30] if words else "work"
    return f"{surname[:30] or 'anon'}{year or ''}{word}"


def _key_word(text: str) -> str:
    # fold keeps digits and letters of every script; a key has only ASCII ones.
    folded = fold(text.lower().translate(_ASCII_LETTERS)).replace(" ", "")
    return re.sub(r"[^a-z0-9]", "", folded)


def bibtex_entry(work: Work, *, abstract: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and its fields; a preprint is ``@misc`` (with eprint fields), as
    arXiv exports it.

    A type whose required fields the record cannot fill (an article without a journal,
    a thesis without a school, an authorless book) gives way to the next that can take
    the record, and in the end to ``@misc`` with a ``type`` saying what it is: BibTeX
    styles warn and biblatex refuses such an entry, while ``@misc`` says only what is
    known. Each type's fields are built once.
    """
    nearest = kind = entry_types.form(work).bibtex
    while kind in _BIBTEX_REQUIRED:
        fields = _bibtex_fields(work, kind, abstract=abstract)
        if _BIBTEX_REQUIRED[kind] <= {name for name, _ in fields}:
            return kind, fields
        kind = _BIBTEX_INSTEAD.get(kind, "misc")
    fields = _bibtex_fields(work, kind, abstract=abstract)
    if kind != nearest:
        fields.append(("type", tex_escape(work.get_type_display())))
    return kind, fields


# The fields each entry type cannot do without, in BibTeX's standard styles or in
# biblatex's data model ("year" aside: an undated work is still of its type).
_BIBTEX_REQUIRED = {
    "article": {"author", "journal"},
    "book": {"author", "publisher"},
    "inbook": {"author", "booktitle", "publisher", "pages"},
    # biblatex asks an @incollection for its editors, which no record gives.
    "incollection": {"author", "editor", "booktitle", "publisher"},
    "inproceedings": {"author", "booktitle"},
    "phdthesis": {"author", "school"},
    "mastersthesis": {"author", "school"},
    "techreport": {"author", "institution"},
}
# The type to try next when a record cannot fill a type's required fields.
_BIBTEX_INSTEAD = {"incollection": "inbook"}
# What a @misc entry does not take: biblatex's data model refuses them there.
_NOT_MISC = {"volume", "number", "pages"}


# The field that names a work's container (journal, proceedings, book) in each entry type.
_BIBTEX_CONTAINER = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
    "techreport": "institution",
    "misc": "howpublished",
}
_BIBTEX_SERIES = ("book", "inbook", "incollection", "inproceedings")
_BIBTEX_PUBLISHED = (*_BIBTEX_SERIES, "techreport")


def _bibtex_venue(work: Work, kind: str) -> list[tuple[str, str]]:
    """The venue as the entry type takes it: a book has a series, never ``howpublished``."""
    role, name = entry_types.venue_role(work), entry_types.venue_name(work)
    fields = []
    if role == entry_types.CONTAINER and not is_preprint(work) and kind in _BIBTEX_CONTAINER:
        fields.append((_BIBTEX_CONTAINER[kind], tex_escape(name)))
    elif role == entry_types.SERIES and kind in _BIBTEX_SERIES:
        fields.append(("series", tex_escape(name)))
    elif role == entry_types.REPOSITORY and kind == "misc" and not work.arxiv_id:
        fields.append(("howpublished", tex_escape(name)))  # arXiv's copy is in eprint
    if kind in _BIBTEX_PUBLISHED and role != entry_types.REPOSITORY:
        fields.append(("publisher", tex_escape(_publisher(work))))
    return fields


def _publisher(work: Work) -> str:
    return visible_text(work.venue.publisher) if entry_types.venue_name(work) else ""


def _bibtex_fields(work: Work, kind: str, *, abstract: bool = True) -> list[tuple[str, str]]:
    """(name, value) pairs for entry type ``kind``; braced when written, except months."""
    names = author_names(work)
    # Braced twice so that styles keep the title's capitals.
    fields = [("title", "{" + tex_escape(title_text(work)) + "}")]
    if names:
        fields.append(("author", " and ".join(_bibtex_name(n) for n in names)))
    else:
        # Styles sort and label an entry by its authors; without any they ask for a key.
        fields.append(("key", tex_escape(" ".join(title_text(work).split()[:3]))))
    fields += _bibtex_venue(work, kind)
    fields += [
        ("volume", tex_escape(visible_text(work.volume))),
        ("number", tex_escape(visible_text(work.issue))),
        ("pages", tex_escape(pages(work, "--"))),
    ]
    if year(work):
        fields.append(("year", str(year(work))))
    if (day := _date(work)) and day.month:
        fields.append(("month", MONTH_MACROS[day.month - 1]))
    if work.doi:
        fields.append(("doi", verbatim(work.doi)))
    if work.arxiv_id:
        fields += [("eprint", verbatim(work.arxiv_id)), ("archivePrefix", "arXiv")]
        if work.arxiv_primary_category:
            fields.append(("primaryClass", verbatim(work.arxiv_primary_category)))
    url = _url(work)
    if url:
        fields.append(("url", verbatim(url)))
    if work.journal_ref:
        fields.append(("note", tex_escape(work.journal_ref)))
    if abstract and work.abstract:
        fields.append(("abstract", tex_escape(abstract_text(work))))
    return [
        (name, value)
        for name, value in fields
        if value and not (kind == "misc" and name in _NOT_MISC)
    ]


MONTH_MACROS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def to_bibtex(work: Work, key: str | None = None, *, abstract: bool = True) -> str:
    """One BibTeX entry for ``work``; every value braced and escaped, months as macros."""
    kind, fields = bibtex_entry(work, abstract=abstract)
    lines = [f"@{kind}{{{key or citation_key(work)},"]
    for index, (name, value) in enumerate(fields):
        comma = "," if index < len(fields) - 1 else ""
        written = value if name == "month" else f"{{{value}}}"
        lines.append(f"  {name} = {written}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# RIS -------------------------------------------------------------------------


def ris_value(value: str) -> str:
    """A RIS value: one line, no control or invisible characters."""
    return visible_text(value)


def _ris_date(work: Work) -> str:
    """``2023/03/04/``, ``2023/03//`` or ``2023///``: the parts the record gives."""
    if not (day := _date(work)):
        return ""
    month = f"{day.month:02d}" if day.month else ""
    return f"{day.year}/{month}/{f'{day.day:02d}' if day.day else ''}/"


def ris_type(work: Work) -> str:
    """The RIS type: UNPB (unpublished work) for a preprint, never JOUR without a journal."""
    return entry_types.form(work).ris


def _ris_venue(work: Work) -> list[tuple[str, str]]:
    """T2 the container, T3 the series, DB the repository; PB the publisher of the first two."""
    role, name = entry_types.venue_role(work), entry_types.venue_name(work)
    lines = []
    if role == entry_types.CONTAINER and not is_preprint(work):
        lines.append(("T2", name))
    elif role == entry_types.SERIES:
        lines.append(("T3", name))
    if role in (entry_types.CONTAINER, entry_types.SERIES, entry_types.PLATFORM):
        lines.append(("PB", _publisher(work)))
    if repository := entry_types.repository_name(work):
        lines.append(("DB", repository))
    return lines


def _ris_lines(work: Work, *, abstract: bool = True) -> list[tuple[str, str]]:
    lines = [("TY", ris_type(work))]
    lines += [("AU", ", ".join(p for p in family_given(n) if p)) for n in author_names(work)]
    lines.append(("TI", title_text(work)))
    lines += _ris_venue(work)
    lines += [
        ("VL", work.volume),
        ("IS", work.issue),
        ("SP", work.first_page),
        ("EP", work.last_page if work.first_page else ""),
    ]
    if year(work):
        lines.append(("PY", str(year(work))))
    if date := _ris_date(work):
        lines.append(("DA", date))
    if abstract and work.abstract:
        lines.append(("AB", abstract_text(work)))
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


def to_ris(work: Work, *, abstract: bool = True) -> str:
    """One RIS record for ``work`` (CRLF line ends, as the format asks)."""
    pairs = _ris_lines(work, abstract=abstract)
    lines = [f"{tag}  - {ris_value(value)}" for tag, value in pairs if ris_value(value)]
    lines.append("ER  - ")
    return "\r\n".join(lines) + "\r\n"


# CSL-JSON --------------------------------------------------------------------


def csl_type(work: Work) -> str:
    return entry_types.form(work).csl


def _csl_venue(work: Work) -> dict:
    """A preprint's repository is its publisher, never its container ("In arXiv")."""
    role, name = entry_types.venue_role(work), entry_types.venue_name(work)
    item = {}
    if role == entry_types.CONTAINER and not is_preprint(work):
        item["container-title"] = name
    elif role == entry_types.SERIES:
        item["collection-title"] = name
    if role in (entry_types.CONTAINER, entry_types.SERIES, entry_types.PLATFORM):
        item["publisher"] = _publisher(work)
    if repository := entry_types.repository_name(work):
        item["publisher"] = repository
    return item


def _csl_name(name: str) -> dict:
    if is_corporate(name):
        return {"literal": name}
    family, given = family_given(name)
    return {"family": family, "given": given} if given else {"literal": family}


def to_csl(work: Work, key: str | None = None, *, abstract: bool = True) -> dict:
    """One CSL-JSON item (the citeproc input format that Zotero and Pandoc read)."""
    item: dict = {
        "id": key or citation_key(work),
        "type": csl_type(work),
        "title": title_text(work),
    }
    if names := author_names(work):
        item["author"] = [_csl_name(n) for n in names]
    if day := _date(work):
        item["issued"] = {"date-parts": [day.parts()]}
    item.update(_csl_venue(work))
    item["volume"] = visible_text(work.volume)
    item["issue"] = visible_text(work.issue)
    item["page"] = pages(work, "-")
    if work.doi:
        item["DOI"] = visible_text(work.doi)
    if work.arxiv_id:
        # As Zotero writes an arXiv preprint: the id in "number" (arXiv, its publisher, once).
        item["number"] = f"arXiv:{visible_text(work.arxiv_id)}"
    if url := _url(work):
        item["URL"] = visible_text(url)
    if abstract and work.abstract:
        item["abstract"] = abstract_text(work)
    if work.language:
        item["language"] = visible_text(work.language)
    return {name: value for name, value in item.items() if value}


def pages(work: Work, dash: str) -> str:
    """The page range ("32--42" in BibTeX, "32-42" in CSL), one page, or ""."""
    first, last = visible_text(work.first_page), visible_text(work.last_page)
    if not first:
        return ""
    return f"{first}{dash}{last}" if last and last != first else first


def _url(work: Work) -> str:
    if work.doi:
        return doi_url(work.doi)
    if work.arxiv_id:
        return f"https://arxiv.org/abs/{work.arxiv_id}"
    return web_url(work.landing_url)


def filename(work: Work, extension: str) -> str:
    """An ASCII file name for the download: the work's slug and the extension."""
    return f"{work.slug[:60] or 'work'}-{work.pk}.{extension}"

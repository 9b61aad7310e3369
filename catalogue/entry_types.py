"""The nearest type each citation format has for a work, and what its venue is to it.

A work's type is OpenAlex's (``Work.Type``), and its venue's type OpenAlex's
source type: journal, conference, repository, book series, ebook platform...
BibTeX, RIS, CSL and schema.org each have a smaller vocabulary. ``FORMS`` gives
each work type its nearest entry in all four; the venue then decides what a
piece that appears in periodicals is: a journal article, a conference paper, or
a copy held in a repository (a repository is never a journal). ``venue_role``
says where each format writes the venue's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalogue.models import Work
from catalogue.tex import visible_text


@dataclass(frozen=True)
class Form:
    """A work's entry type in each format: BibTeX, RIS, CSL and schema.org."""

    bibtex: str
    ris: str
    csl: str
    schema: str


T = Work.Type
_JOURNAL_ARTICLE = Form("article", "JOUR", "article-journal", "ScholarlyArticle")
_DOCUMENT = Form("misc", "GEN", "document", "CreativeWork")
PREPRINT = Form("misc", "UNPB", "article", "ScholarlyArticle")
CONFERENCE_PAPER = Form("inproceedings", "CPAPER", "paper-conference", "ScholarlyArticle")
# An article the record knows only as held in a repository: not a journal's, not unpublished.
REPOSITORY_COPY = Form("misc", "GEN", "article", "ScholarlyArticle")

FORMS: dict[str, Form] = {
    T.ARTICLE: _JOURNAL_ARTICLE,
    T.REVIEW: _JOURNAL_ARTICLE,  # OpenAlex's review is a review article
    T.EDITORIAL: _JOURNAL_ARTICLE,
    T.ERRATUM: _JOURNAL_ARTICLE,
    T.LETTER: _JOURNAL_ARTICLE,  # to a journal: CSL's "letter" is private correspondence
    T.RETRACTION: _JOURNAL_ARTICLE,
    T.BOOK_REVIEW: Form("article", "JOUR", "review-book", "Review"),
    T.PREPRINT: PREPRINT,
    T.BOOK: Form("book", "BOOK", "book", "Book"),
    T.BOOK_CHAPTER: Form("incollection", "CHAP", "chapter", "Chapter"),
    T.REFERENCE_ENTRY: Form("incollection", "ENCYC", "entry-encyclopedia", "CreativeWork"),
    T.DATASET: Form("misc", "DATA", "dataset", "Dataset"),
    T.DISSERTATION: Form("phdthesis", "THES", "thesis", "Thesis"),
    T.REPORT: Form("techreport", "RPRT", "report", "Report"),
    T.GRANT: Form("misc", "GRANT", "document", "CreativeWork"),
    T.STANDARD: Form("misc", "STAND", "standard", "CreativeWork"),
    T.LIBGUIDES: Form("misc", "ELEC", "webpage", "WebPage"),
    T.PEER_REVIEW: Form("misc", "GEN", "review", "Review"),
    T.PARATEXT: _DOCUMENT,
    T.SUPPLEMENTARY_MATERIALS: _DOCUMENT,
    T.OTHER: _DOCUMENT,
}
# Types that appear in journals or proceedings, whose entry follows their venue.
PERIODICAL = frozenset(
    {T.ARTICLE, T.REVIEW, T.EDITORIAL, T.ERRATUM, T.LETTER, T.RETRACTION, T.BOOK_REVIEW}
)

# What a venue is to a work's entry (``venue_role``).
CONTAINER, SERIES, REPOSITORY, PLATFORM = "container", "series", "repository", "platform"


def venue_name(work: Work) -> str:
    return visible_text(work.venue.name) if work.venue_id and work.venue else ""


def venue_kind(work: Work) -> str:
    """The venue's type at OpenAlex ("journal", "conference", "repository"...), or ""."""
    return (work.venue.type or "").strip().lower() if venue_name(work) else ""


def venue_role(work: Work) -> str:
    """How a work's entry names its venue.

    CONTAINER: the journal, proceedings or book the work is in; SERIES: the book
    series; REPOSITORY: where a copy is held, never a journal; PLATFORM: an ebook
    platform or a metadata index, no title at all; "" without a venue.
    """
    kind = venue_kind(work)
    if not venue_name(work):
        return ""
    if kind == "repository":
        return REPOSITORY
    if kind == "book series":
        return SERIES
    if kind in ("ebook platform", "metadata"):  # a platform or an index, not a title
        return PLATFORM
    return CONTAINER


def is_preprint(work: Work) -> bool:
    """A preprint, or a periodical piece on arXiv that names no journal or conference."""
    if work.type == T.PREPRINT:
        return True
    held = venue_role(work) in ("", REPOSITORY)
    return work.type in PERIODICAL and bool(work.arxiv_id) and held


def form(work: Work) -> Form:
    """The entry ``work`` takes in each format."""
    if is_preprint(work):
        return PREPRINT
    if work.type in PERIODICAL:
        if venue_kind(work) == "conference":
            return CONFERENCE_PAPER
        if venue_role(work) == REPOSITORY:
            return REPOSITORY_COPY
    return FORMS.get(work.type, _DOCUMENT)


def repository_name(work: Work) -> str:
    """The repository holding the work, as a citation names it: "arXiv" for arXiv."""
    if venue_role(work) != REPOSITORY:
        return "arXiv" if work.arxiv_id and is_preprint(work) else ""
    return "arXiv" if work.arxiv_id and "arxiv" in venue_name(work).lower() else venue_name(work)

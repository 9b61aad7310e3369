"""Which source's value a work keeps when OpenAlex and arXiv both describe it.

Each source is trusted for what it knows best: OpenAlex for bibliographic
metadata and counts, arXiv for the preprint itself (its abstract as the authors
wrote it, categories, comments, the code its authors link). Otherwise a value
only fills a blank, and a source may always update a value it set itself. A value no source set (the
model's default, such as the type "article" of a new row) counts as blank.
``Work.provenance`` records which source set each field, so pages can say where
a fact came from.

The date follows one rule (``apply_dates``): the version of record's date when
there is one, else the first version's; the year is always that date's year.
A date keeps the precision its source gives (docs/DATES.md); arXiv's journal
reference, when it names a year, dates the version of record to that year.

arXiv's created and updated dates (the first version's submission and the last
version's) are trusted over OpenAlex's, which date its record rather than the
work: the two dates a work page shows then come from one source.
"""

from __future__ import annotations

from datetime import date

from catalogue.dates import YEAR, PartialDate
from catalogue.identifiers import normalize_title, surname
from catalogue.models import Work
from ingestion.ingest.rows import build
from ingestion.records import WorkRecord

# Work field -> WorkRecord attribute.
FIELDS = {
    "title": "title",
    "abstract": "abstract",
    "type": "type",
    "language": "language",
    "publication_date": "publication_date",
    "publication_year": "publication_year",
    "source_created_date": "created_date",
    "source_updated_at": "updated_at",
    "journal_ref": "journal_ref",
    "doi": "doi",
    "arxiv_id": "arxiv_id",
    "openalex_id": "openalex_id",
    "pmid": "pmid",
    "arxiv_primary_category": "arxiv_primary_category",
    "comments": "comments",
    "code_url": "code_url",
    "pdf_url": "pdf_url",
    "landing_url": "landing_url",
    "license": "license",
    "is_open_access": "is_open_access",
    "oa_status": "oa_status",
    "oa_url": "oa_url",
    "volume": "volume",
    "issue": "issue",
    "first_page": "first_page",
    "last_page": "last_page",
    "is_retracted": "is_retracted",
    "cited_by_count": "cited_by_count",
    "counts_by_year": "counts_by_year",
    "authors_truncated": "authors_truncated",
}

TRUSTED = {
    "openalex": {
        "title",
        "type",
        "language",
        "publication_date",
        "publication_year",
        "doi",
        "openalex_id",
        "pmid",
        "license",
        "is_open_access",
        "is_retracted",
        "cited_by_count",
        "counts_by_year",
        "landing_url",
        "venue",
        "authors_truncated",
        "oa_status",
        "oa_url",
        "volume",
        "issue",
        "first_page",
        "last_page",
    },
    "arxiv": {
        "abstract",
        "arxiv_id",
        "arxiv_primary_category",
        "comments",
        "code_url",
        "journal_ref",
        "source_created_date",
        "source_updated_at",
    },
}

ARXIV_DOI_PREFIX = "10.48550/arxiv."
LIMITS = {f.name: f.max_length for f in Work._meta.get_fields() if getattr(f, "max_length", None)}


def _empty(value) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _clip(field: str, value):
    limit = LIMITS.get(field)
    if limit and isinstance(value, str):
        return value[:limit]
    return value


# Fields whose value is the model's default until a source sets one.
_DEFAULTED = {"type"}
DATE_FIELDS = ("publication_date", "publication_year")


def _may_set(work: Work, field: str, source: str, new, version: str = "") -> bool:
    current = getattr(work, field)
    if _empty(new) or current == new:
        return False
    if version == FIRST_VERSION and _has_version_of_record(work) and not _empty(current):
        return False  # a preprint's record only fills blanks once the published version is in
    if field in _DEFAULTED and field not in work.provenance:
        return True
    if field == "doi" and current and new.startswith(ARXIV_DOI_PREFIX):
        return False  # a journal DOI is never replaced by the preprint's DataCite DOI
    if field == "doi" and current and current.startswith(ARXIV_DOI_PREFIX):
        return True
    if _empty(current) or field in TRUSTED.get(source, ()):
        return True
    return work.provenance.get(field) == source


def _gives_the_default(work: Work, field: str, new) -> bool:
    """A source gives a defaulted field the value it holds by default (an article's type).

    Unrecorded, the value would still count as blank, and another source could
    replace it: a preprint arriving after its published version would retype it.
    """
    return (
        field in _DEFAULTED
        and field not in work.provenance
        and not _empty(new)
        and getattr(work, field) == new
    )


def apply_record(work: Work, record: WorkRecord) -> bool:
    """Copy the record's values onto ``work`` as the rules above allow; True if anything changed.

    When one source gives two records of a work (OpenAlex lists a preprint and its
    published version apart), the published version's values win whichever comes
    first; the preprint's only fill what it leaves blank. Citations per year always
    come from the record whose citation count is kept, so the two never disagree.
    """
    version = record_version(record)
    changed = apply_dates(work, record)
    for field, attr in FIELDS.items():
        if field in DATE_FIELDS or field == "counts_by_year":
            continue
        new = _clip(field, getattr(record, attr))
        if _may_set(work, field, record.source, new, version):
            setattr(work, field, new)
            work.provenance[field] = record.source
            changed = True
        elif _gives_the_default(work, field, new):
            work.provenance[field] = record.source  # now a value a source gave, not a blank
            changed = True
    changed = _follow_count(work, record) or changed
    changed = note_dropped(work, record) or changed
    if changed:
        work.normalized_title = normalize_title(work.title)[:500]
    if record.authors and (not work.first_author_surname or record.source == "openalex"):
        first = surname(record.authors[0].name)[:200]
        if first != work.first_author_surname:
            work.first_author_surname = first
            changed = True
    return changed


# The provenance key saying which version the work's date is of: "record" or "first".
DATE_VERSION = "date_version"
VERSION_OF_RECORD, FIRST_VERSION = "record", "first"


def date_version(record: WorkRecord) -> str:
    """Whether ``record`` dates the version of record or a first (preprint) version.

    arXiv dates a work's first version (v1), or the version of record when its
    journal reference names a year. OpenAlex dates the version of record unless
    its record is the preprint itself (type preprint, or an arXiv DOI).
    """
    if record.journal_year:
        return VERSION_OF_RECORD
    if record.source != "openalex" or record.type == "preprint":
        return FIRST_VERSION
    if record.doi and record.doi.startswith(ARXIV_DOI_PREFIX):
        return FIRST_VERSION
    return VERSION_OF_RECORD


def apply_dates(work: Work, record: WorkRecord) -> bool:
    """Set the work's date, its precision and its year by the one date rule; True if changed.

    The version of record's date wins over any first version's; among first
    versions the earliest wins (a source may still correct its own). The year is
    the date's year whenever there is a date, so lists, pages, exports, feeds,
    metrics and the API, which all read these fields, never disagree.
    """
    new = _dated(record)
    new_year = new[1]
    if new_year is None or work.provenance.get("publication_date") == "staff":
        return False
    version = date_version(record)
    if not _date_wins(work, record.source, version, new):
        return False
    if (work.publication_date, work.publication_year, work.publication_date_precision) == new:
        return _note_date(work, record.source, version)
    work.publication_date, work.publication_year, work.publication_date_precision = new
    _note_date(work, record.source, version)
    return True


def _dated(record: WorkRecord) -> tuple[date | None, int | None, str]:
    """(date, year, precision) as ``record`` dates the work; a year alone has no date."""
    if record.journal_year:
        return date(record.journal_year, 1, 1), record.journal_year, YEAR
    if record.publication_date is not None:
        return record.publication_date, record.publication_date.year, record.date_precision
    return None, record.publication_year, YEAR


def _date_wins(work: Work, source: str, version: str, new: tuple) -> bool:
    if work.publication_year is None and work.publication_date is None:
        return True
    current = work.provenance.get(DATE_VERSION)
    holder = work.provenance.get("publication_date")
    if current is None and holder == "openalex":
        current = VERSION_OF_RECORD if work.type != "preprint" else FIRST_VERSION
    if version != (current or FIRST_VERSION):
        return version == VERSION_OF_RECORD
    if holder == source:
        return True  # a source corrects its own date
    if version == VERSION_OF_RECORD:
        # Two versions of record: the first one kept stays, but OpenAlex, which dates the
        # version of record itself, replaces the bare year of arXiv's journal reference.
        return source == "openalex" and holder == "arxiv"
    old = (work.publication_date, work.publication_year, work.publication_date_precision)
    return _earlier(new, old)


def _earlier(new: tuple, old: tuple) -> bool:
    """A first version is the earliest one, compared as far as both dates go.

    Within the same year (or month) the more precise date wins: a day beats the
    bare year or month it falls in, which may only stand for it.
    """
    new_parts, old_parts = PartialDate.of(*new), PartialDate.of(*old)
    if old_parts is None:
        return True
    new_parts, old_parts = new_parts.parts(), old_parts.parts()
    depth = min(len(new_parts), len(old_parts))
    if new_parts[:depth] != old_parts[:depth]:
        return new_parts[:depth] < old_parts[:depth]
    return len(new_parts) > len(old_parts)


def _note_date(work: Work, source: str, version: str) -> bool:
    before = dict(work.provenance)
    work.provenance["publication_date"] = source
    work.provenance["publication_year"] = source
    work.provenance[DATE_VERSION] = version
    return work.provenance != before


DROPPED = "dropped"  # the provenance key of values a source gave that were not kept


def note_dropped(work: Work, record: WorkRecord) -> bool:
    """Note in ``work.provenance`` what ``record`` gave that was not kept; True if that changed.

    ``provenance["dropped"]`` maps a field to ``{"source", "reason"}``, e.g. ``"pdf_url":
    {"source": "openalex", "reason": "not an http(s) address"}``. A source's note
    goes once that source sends a value that is kept, or none.
    """
    notes = work.provenance.get(DROPPED)
    notes = dict(notes) if isinstance(notes, dict) else {}
    before = dict(notes)
    for name, note in before.items():
        if name not in record.dropped and _noted_by(note, record.source):
            del notes[name]
    for name, reason in record.dropped.items():
        notes[name] = {"source": record.source, "reason": reason}
    if notes == before:
        return False
    if notes:
        work.provenance[DROPPED] = notes
    else:
        work.provenance.pop(DROPPED, None)
    return True


def _noted_by(note: object, source: str) -> bool:
    return isinstance(note, dict) and note.get("source") == source


def _follow_count(work: Work, record: WorkRecord) -> bool:
    """Citations per year from the record whose citation count the work keeps."""
    kept = work.provenance.get("cited_by_count") == record.source
    if not kept or work.cited_by_count != record.cited_by_count:
        return False
    by_year = record.counts_by_year or []
    if work.counts_by_year == by_year:
        return False
    work.counts_by_year = by_year
    work.provenance["counts_by_year"] = record.source
    return True


def record_version(record: WorkRecord) -> str:
    """For an OpenAlex record, whether it is of the version of record or a first version."""
    return date_version(record) if record.source == "openalex" else ""


def _has_version_of_record(work: Work) -> bool:
    return work.provenance.get(DATE_VERSION) == VERSION_OF_RECORD


def apply_venue(work: Work, venue_id: int | None, source: str, version: str = "") -> bool:
    if venue_id is None or work.venue_id == venue_id:
        return False
    if version == FIRST_VERSION and _has_version_of_record(work):
        return False  # a preprint's repository is not the published version's venue
    if work.venue_id and source not in {"openalex"} and work.provenance.get("venue") != source:
        return False
    work.venue_id = venue_id
    work.provenance["venue"] = source
    return True


def new_work(record: WorkRecord) -> Work:
    work = build(Work, provenance={})
    apply_record(work, record)
    return work


UPDATE_FIELDS = [
    *FIELDS,
    "publication_date_precision",
    "normalized_title",
    "first_author_surname",
    "venue",
    "provenance",
]

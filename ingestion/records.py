"""Plain records that mappers produce and ingest consumes.

A mapper turns one source payload into one of these and never touches the
database; ingest writes them. Identifiers are already normalised
(see catalogue.identifiers).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime


class MappingError(ValueError):
    """A payload cannot be turned into a record; the message says why."""


class SourceError(Exception):
    """A source answered with an error instead of records.

    ``body`` keeps what it sent (JSON error, HTML page, error feed) so the
    problem can be quarantined with it. ``resume_at``, when set, is the position
    a run saves once the problem is recorded (it goes on after it).
    ``external_id`` names the one record the error is about, if it is about one
    (an id that was asked for and not returned).
    """

    def __init__(
        self, message: str, *, status: int | None = None, body: str = "", external_id: str = ""
    ):
        super().__init__(message)
        self.status = status
        self.body = body
        self.external_id = external_id
        self.resume_at = None


@dataclass(slots=True)
class InstitutionRef:
    name: str
    openalex_id: str | None = None
    ror: str | None = None
    country_code: str = ""
    type: str = ""
    homepage_url: str = ""
    homepage_dropped: str = ""  # why the homepage the source gave was not kept


@dataclass(slots=True)
class VenueRef:
    name: str
    openalex_id: str | None = None
    issn_l: str = ""
    type: str = ""
    publisher: str = ""
    homepage_url: str = ""
    homepage_dropped: str = ""


@dataclass(frozen=True, slots=True)
class TopicRef:
    """A topic with its ancestors: topic > subfield > field > domain, or an arXiv category.

    Frozen: the OpenAlex mapper shares one parent chain among all works that name it.
    """

    key: str  # "openalex:T10102", "openalex:subfields/1804", "arxiv:cs.LG", "openalex:C41008148"
    name: str
    kind: str  # a catalogue.models.Topic.Kind value
    score: float = 1.0
    is_primary: bool = False
    parent: TopicRef | None = None


@dataclass(slots=True)
class GrantRef:
    funder_name: str
    funder_openalex_id: str | None = None
    funder_ror: str | None = None
    award_id: str = ""


@dataclass(slots=True)
class AuthorRef:
    """An author as one work names them."""

    position: int  # 0 for the first author
    name: str
    raw_name: str = ""
    openalex_id: str | None = None
    orcid: str | None = None
    raw_affiliation: str = ""
    institutions: list[InstitutionRef] = field(default_factory=list)
    is_corresponding: bool = False


@dataclass(slots=True)
class WorkRecord:
    source: str  # "openalex" or "arxiv"
    external_id: str  # the key of its SourceRecord: a W id or an arXiv id
    title: str
    abstract: str = ""
    type: str = "article"  # a catalogue.models.Work.Type value
    language: str = ""
    publication_date: date | None = None
    # How much of publication_date the source gives: "year", "month" or "day" (catalogue.dates).
    date_precision: str = "day"
    publication_year: int | None = None
    # The year of the version of record that arXiv's journal reference names, if any.
    journal_year: int | None = None
    created_date: date | None = None
    updated_at: datetime | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    pmid: str | None = None
    venue: VenueRef | None = None
    journal_ref: str = ""
    arxiv_primary_category: str = ""
    comments: str = ""
    code_url: str = ""
    pdf_url: str = ""
    landing_url: str = ""
    license: str = ""
    is_open_access: bool | None = None
    oa_status: str = ""  # OpenAlex open_access.oa_status, one of OA_STATUSES
    oa_url: str = ""  # the best open copy (http(s) only)
    volume: str = ""
    issue: str = ""
    first_page: str = ""
    last_page: str = ""
    is_retracted: bool = False
    cited_by_count: int | None = None  # None: the source did not say
    counts_by_year: list[dict] = field(default_factory=list)  # [{"year", "cited_by_count"}]
    authors: list[AuthorRef] = field(default_factory=list)
    # The source lists only some of the authors (OpenAlex ``is_authors_truncated``).
    authors_truncated: bool = False
    topics: list[TopicRef] = field(default_factory=list)
    grants: list[GrantRef] = field(default_factory=list)
    # OpenAlex W ids this work cites; None: the source did not say (existing links are kept).
    referenced_works: list[str] | None = None
    # Values the source gave that were not kept, and why: {"pdf_url": "not an http(s) address"}.
    dropped: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class AffiliationRef:
    institution: InstitutionRef
    years: list[int] = field(default_factory=list)


@dataclass(slots=True)
class AuthorRecord:
    source: str
    external_id: str  # an OpenAlex A id
    display_name: str
    openalex_id: str | None = None
    orcid: str | None = None
    alternative_names: list[str] = field(default_factory=list)
    is_deleted: bool = False
    last_known_institutions: list[InstitutionRef] = field(default_factory=list)
    affiliations: list[AffiliationRef] = field(default_factory=list)
    works_count: int | None = None
    cited_by_count: int | None = None
    topics: list[TopicRef] = field(default_factory=list)  # top topics, for telling namesakes apart
    updated_at: datetime | None = None
    # The source's own figures for the whole record (None: not given or not usable).
    h_index: int | None = None
    i10_index: int | None = None
    mean_citedness: float | None = None  # mean citations of the works of the two years before
    counts_by_year: list[dict] = field(default_factory=list)  # [{"year", "works", "citations"}]


@dataclass(slots=True)
class Page:
    """One page fetched from a source: raw payloads plus where the next page starts."""

    entity: str  # "work" or "author"
    payloads: list[dict]
    next_cursor: object = None  # None: this was the last page
    total: int | None = None

"""What an ingest of one batch is told beforehand and reports afterwards."""

from __future__ import annotations

from dataclasses import dataclass, field

from catalogue.models import SourceRecord, Work
from ingestion.ingest.hashing import Hashed
from ingestion.ingest.lookups import Stored
from ingestion.ingest.merge import new_work
from ingestion.records import WorkRecord


@dataclass
class BatchResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    author_ids: set[int] = field(default_factory=set)
    work_ids: set[int] = field(default_factory=set)
    # Name blocks where the batch made a record with an id beside other records: the
    # identity engine weighs them again after the commit (``ingestion.people``).
    name_blocks: set[str] = field(default_factory=set)
    # Records not written, each with why: (payload, reason), e.g. an identifier another work holds.
    rejected: list[tuple[dict, str]] = field(default_factory=list)

    def add(self, other: BatchResult) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.author_ids |= other.author_ids
        self.work_ids |= other.work_ids
        self.name_blocks |= other.name_blocks
        self.rejected += other.rejected


@dataclass
class Precomputed:
    """What was computed for a batch before it is written (in another thread), by ``id()``.

    ``hashes``: the ``Hashed`` of payloads; ``lines``: the digest of the file line a
    payload was read from; ``drafts``: a new ``Work`` built from a record
    (``new_work``), used if no stored work matches it. ``stored``: the source
    records already read for the (source, external id) pairs in ``checked``.
    """

    hashes: dict[int, Hashed] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)
    drafts: dict[int, Work] = field(default_factory=dict)
    stored: dict[tuple[str, str], Stored] = field(default_factory=dict)
    checked: set[tuple[str, str]] = field(default_factory=set)

    def draft(self, record: WorkRecord) -> Work:
        return self.drafts.pop(id(record), None) or new_work(record)

    def forget_reads(self) -> None:
        """What was read from the database, or drafted against it, may be stale: read it again."""
        self.checked.clear()
        self.stored.clear()
        self.drafts.clear()


@dataclass
class IncomingWork:
    """One record of the batch on its way to the database: its payload, mapped record and work."""

    payload: dict
    record: WorkRecord
    digest: str
    source_record: SourceRecord | None
    text: bytes | None = None  # the payload as JSON, when already serialised
    line_digest: str = ""  # of the file line it was read from, if it was
    work: Work | None = None
    is_new: bool = False
    deferred: bool = False  # its work is written by an earlier record of the batch
    rejected: str = ""  # why it is not written (``conflicts``), if it is not
    leads: bool = True  # its byline, funding and topics are the work's (``versions``)
    lead_source: str = ""  # the source of the record that leads its work

"""Records whose work would take an identifier that another work holds, found before a write.

A DOI, an arXiv id and an OpenAlex id each belong to one work (unique where
set). A record names its work by one of them (or by its source record) and
brings the others, so it may give its work an identifier another work holds: a
record with the DOI of one work and the arXiv id of another, or a new DOI that a
second record of the batch gives another work. Such a record is refused by the
database; written with the rest of its batch it would fail the whole batch.

``sort_out`` finds these records among a batch's planned works without a
query (the stored works holding the batch's identifiers are read once, with the
works the records name) and takes the records in order, as if each were
written alone: one whose work would take an identifier that a stored work
holds is set aside with the reason (it becomes an import problem, as it would
alone); one that meets what an earlier record of the batch changes waits, and
is written after that record, against what it wrote.
"""

from __future__ import annotations

from collections import defaultdict

from catalogue.models import Work
from ingestion.ingest.batch import IncomingWork
from ingestion.ingest.merge import apply_record
from ingestion.records import WorkRecord

LABELS = {"doi": "DOI", "arxiv": "arXiv id", "openalex": "OpenAlex id"}


class ConflictingIdentifier(Exception):
    """A record would give its work an identifier that another work holds."""


def record_keys(record: WorkRecord) -> list[str]:
    pairs = (("doi", record.doi), ("arxiv", record.arxiv_id), ("openalex", record.openalex_id))
    return [f"{kind}:{value}" for kind, value in pairs if value]


def work_keys(work: Work) -> list[str]:
    pairs = (("doi", work.doi), ("arxiv", work.arxiv_id), ("openalex", work.openalex_id))
    return [f"{kind}:{value}" for kind, value in pairs if value]


def holders_of(works: list[Work]) -> dict[str, int]:
    """Which stored work (its id) holds each identifier of ``works``."""
    return {key: work.pk for work in works for key in work_keys(work)}


def _identity(work: Work):
    return work.pk if work.pk is not None else ("new", id(work))


def reason(key: str, holder: int) -> str:
    kind, _, value = key.partition(":")
    return f"its {LABELS[kind]} {value} belongs to another work (#{holder})."


def sort_out(pending: list[IncomingWork], holders: dict[str, int]) -> None:
    """Set aside (``rejected``) or defer each record whose work would take a held identifier.

    ``holders``: the stored work holding each identifier the batch's records
    carry. A record's planned work is its work with the record applied; the
    identifiers held when its turn comes are the stored ones as the records
    before it (not set aside, not deferred) change them.
    """
    stored = defaultdict(set)
    for key, holder in holders.items():
        stored[holder].add(key)
    held = dict(holders)  # identifier -> identity of the work holding it at this record's turn
    changed = set()  # works that earlier records of the batch change
    waiting = set()  # identifiers that deferred records name, give or take away
    for item in pending:
        if item.deferred:
            continue
        work, ident = item.work, _identity(item.work)
        if not item.is_new:
            apply_record(work, item.record)  # idempotent: the write applies it again
        planned = set(work_keys(work))
        before = stored.get(work.pk, set()) if work.pk is not None else set()
        clashes = {key: held[key] for key in planned if held.get(key, ident) != ident}
        touched = planned | before | set(record_keys(item.record))
        if touched & waiting or changed & set(clashes.values()):
            item.work, item.is_new, item.deferred = None, False, True
            waiting |= touched
            continue
        if clashes:
            key = min(clashes)  # one reason, the same whatever the order of a set
            item.work, item.is_new, item.rejected = None, False, reason(key, clashes[key])
            continue
        for key in before - planned:
            if held.get(key) == ident:
                del held[key]
        held.update(dict.fromkeys(planned, ident))
        changed.add(ident)

"""Weighing a name block again when new evidence reaches it.

An import resolves its own bylines as they arrive; what it cannot see is how
its evidence bears on records an earlier import made from bare names (a record
with a source id arrives after the preprint's bare byline made a provisional
record). ``reconsider`` weighs such blocks again after the batch is written and
folds each provisional record the evidence puts with another record into it,
so the same files give the same people whatever order they arrive in.

``resolve_block`` does the whole of it for one block (the re-resolve task and
command): provisional records are folded, pairs of records the evidence says
may be one person (a source that split a person under two ids) are raised as
merge candidates with their evidence, and records whose works look like two
people or more get a split proposal (``splits``), for staff or the owner to
decide.
Records with ids merge only on id-level proof: an ORCID is held by one record
at most, so a record arriving with a known ORCID already goes to its holder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalogue.models import MergeCandidate
from ingestion.ingest.title_matches import candidate_pair, kept_apart_pairs, raised_pairs
from ingestion.people.folding import fold_records
from ingestion.people.matching import author_candidate, place
from ingestion.people.records import loose_blocks
from ingestion.people.splits import split_block

CANDIDATES_PER_BLOCK = 50


@dataclass
class BlockReport:
    key: str
    folded: set[int] = field(default_factory=set)
    candidates: int = 0
    splits: int = 0


def reconsider(blocks: set[str]) -> set[int]:
    """Weigh again the blocks holding a provisional record; return the records changed."""
    touched: set[int] = set()
    for key in sorted(loose_blocks(blocks)):
        outcome = place([], [], {}, blocks={key})
        touched |= fold_records(outcome.absorbed)
    return touched


def resolve_block(key: str) -> BlockReport:
    """Fold the block's provisional records, raise its record pairs as candidates and
    propose splits of its records that look like several people."""
    report = BlockReport(key)
    outcome = place([], [], {}, blocks={key}, between_records=True)
    report.folded = fold_records(outcome.absorbed)
    report.candidates = raise_candidates(outcome)
    report.splits = split_block(key)
    return report


def raise_candidates(outcome) -> int:
    """Write the record pairs of ``outcome`` not raised or kept apart before."""
    rows = []
    for pair in outcome.pairs[:CANDIDATES_PER_BLOCK]:
        left, right = (outcome.absorbed.get(p[1], p[1]) for p in (pair.left, pair.right))
        if "group" in (pair.left[0], pair.right[0]) or left == right:
            continue
        rows.append(author_candidate(left, right, pair))
    known = kept_apart_pairs(rows) | raised_pairs(rows)
    fresh = {candidate_pair(c): c for c in rows if candidate_pair(c) not in known}
    MergeCandidate.objects.bulk_create(list(fresh.values()), ignore_conflicts=True)
    return len(fresh)

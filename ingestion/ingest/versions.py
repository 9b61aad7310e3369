"""Versions of one work: which record's byline, affiliations, funding and topics a work keeps.

A work may be described by several records: arXiv's record of the preprint,
OpenAlex's record of the version of record, and sometimes OpenAlex's record of
the preprint as well. The work keeps one byline, that of its *leading* record:
the version of record over a preprint, an OpenAlex record of the preprint (it
has author ids and institutions) over arXiv's. Between two records of the same
rank (a source that lists one work twice), the smaller external id leads. So
whichever record arrives first, the same one leads in the end.

The leading record writes the byline (replacing any other record's), the
funding, and its source's topics. Any other record writes no authorship: its
names are aligned with the kept byline by name compatibility, never by position
alone, and what it adds to the work (an arXiv id, categories, comments, code
links) is applied by ``merge.apply_record``. Its source record stays in the
provenance. ``Work.provenance["byline"]`` says which record leads.
"""

from __future__ import annotations

from collections import defaultdict

from catalogue.models import Authorship, Work
from identity.names import compatible, parse_name
from ingestion.ingest.merge import ARXIV_DOI_PREFIX, VERSION_OF_RECORD
from ingestion.records import WorkRecord

LEAD = "byline"  # the provenance key of the leading record: {"source", "id", "rank"}
IMPORT_SOURCES = frozenset({"openalex", "arxiv"})  # bylines that records write and replace

# Ranks: the version of record, a source's record of the preprint with ids, arXiv's record.
RECORD, PREPRINT_WITH_IDS, ARXIV = 2, 1, 0


def rank(record: WorkRecord) -> int:
    if record.source != "openalex":
        return ARXIV
    if record.type == "preprint" or (record.doi or "").startswith(ARXIV_DOI_PREFIX):
        return PREPRINT_WITH_IDS
    return RECORD


def held(work: Work, existing: list[Authorship]) -> tuple[int, str, str] | None:
    """(rank, source, external id) of the record whose byline ``work`` holds; None if none.

    A work written before the lead was recorded is read from its authorships: an
    OpenAlex byline is the version of record's when the work is dated by one.
    """
    lead = work.provenance.get(LEAD) if isinstance(work.provenance, dict) else None
    if isinstance(lead, dict) and isinstance(lead.get("rank"), int):
        return lead["rank"], str(lead.get("source", "")), str(lead.get("id", ""))
    sources = {a.source for a in existing}
    if "openalex" in sources:
        dated = work.provenance.get("date_version") == VERSION_OF_RECORD
        return (RECORD if dated else PREPRINT_WITH_IDS), "openalex", ""
    if "arxiv" in sources:
        return ARXIV, "arxiv", ""
    return None


def leads(record: WorkRecord, holder: tuple[int, str, str] | None) -> bool:
    """Whether ``record`` leads a work whose byline ``holder`` wrote."""
    if holder is None:
        return True
    held_rank, source, external_id = holder
    mine = rank(record)
    if mine != held_rank:
        return mine > held_rank
    if source != record.source or not external_id:
        return True  # a byline of unknown record: the record of its rank writes it again
    return record.external_id <= external_id


def note_lead(work: Work, record: WorkRecord) -> None:
    work.provenance[LEAD] = {
        "source": record.source,
        "id": record.external_id[:255],
        "rank": rank(record),
    }


def lead_source(work: Work) -> str:
    lead = work.provenance.get(LEAD) if isinstance(work.provenance, dict) else None
    return str(lead.get("source", "")) if isinstance(lead, dict) else ""


def align(left: list[str], right: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of names of two bylines of one work that stand for one person.

    Two names pair only when compatible (``identity.names``); each name pairs at
    most once. The most certain pairs are taken first, then the nearest in
    position: "A. Del Maestro" at 0 pairs with "Adrian Del Maestro" wherever the
    other byline puts him, and never with "Bernd Rosenow" at 0.
    """
    index = defaultdict(list)
    parsed_left = [parse_name(name or "") for name in left]
    for i, name in enumerate(parsed_left):
        for key in name.cores | set(name.parts):
            index[key].append(i)
    candidates = []
    for j, raw in enumerate(right):
        name = parse_name(raw or "")
        seen = set()
        for key in name.cores | set(name.parts):
            for i in index.get(key, ()):
                if i in seen:
                    continue
                seen.add(i)
                level = compatible(parsed_left[i], name)
                if level:
                    candidates.append((-level, abs(i - j), i, j))
    candidates.sort()
    taken_left, taken_right, pairs = set(), set(), []
    for _, _, i, j in candidates:
        if i not in taken_left and j not in taken_right:
            taken_left.add(i)
            taken_right.add(j)
            pairs.append((i, j))
    return sorted(pairs)


def decide_leads(pending: list, existing: dict[int, list[Authorship]]) -> None:
    """Say of each record of a batch (``IncomingWork``) whether it leads its work.

    A new work is led by the record that makes it; a stored one by the record of
    highest rank (``leads``). The leading record is noted in the work's provenance.
    """
    for item in pending:
        if item.work is None or item.deferred or item.rejected:
            continue
        holder = None if item.is_new else held(item.work, existing.get(item.work.pk, []))
        item.leads = leads(item.record, holder)
        if item.leads:
            note_lead(item.work, item.record)
            item.lead_source = item.record.source
        else:
            item.lead_source = holder[1]

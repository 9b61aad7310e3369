"""Citation links of a batch: each OpenAlex record's reference list, and works that arrive.

A link is kept by the cited work's OpenAlex id whether or not we hold that work,
and pointed at our work in the same batch that brings either end: a record's
references are resolved when they are written, and a work's arrival resolves
every link already waiting for it. Everything is a few statements per batch.
"""

from __future__ import annotations

from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from catalogue.models import Citation, Source, SourceRecord, Work
from ingestion.ingest.rows import any_of, insert_rows, present_in
from ingestion.records import WorkRecord


def write_citations(items: list[tuple[int, WorkRecord]], arrived: set[str]) -> set[int]:
    """Make each record's links what its reference list says; resolve links to ``arrived``.

    ``items`` pairs a work id with the OpenAlex record written to it (records that
    did not say what they cite are left as they are). ``arrived`` holds the
    OpenAlex ids of the works the batch wrote. Returns the ids of cited works
    whose citations changed (a link gained or lost).
    """
    listed = {r.external_id: (work_id, r) for work_id, r in items if _lists_references(r)}
    now = timezone.now()
    touched = _replace_links(listed, now) if listed else set()
    touched |= _resolve_arrivals(arrived, now) if arrived else set()
    touched.discard(None)
    return touched


def _lists_references(record: WorkRecord) -> bool:
    return record.source == Source.OPENALEX and record.referenced_works is not None


def _replace_links(listed: dict[str, tuple[int, WorkRecord]], now) -> set[int]:
    """Drop the links a record no longer lists, add the new ones, follow a record to its work.

    A new link is written resolved when we hold the work it names.
    """
    wanted = {(citing, cited) for citing, (_, r) in listed.items() for cited in r.referenced_works}
    stored = Citation.objects.filter(any_of("citing_openalex_id", listed)).values_list(
        "pk", "citing_openalex_id", "cited_openalex_id", "citing_id", "cited_id"
    )
    dropped, moved, touched, held = [], {}, set(), set()
    for pk, citing, cited, citing_id, cited_id in stored:
        if (citing, cited) not in wanted:
            dropped.append(pk)
            touched.add(cited_id)
            continue
        held.add((citing, cited))
        if citing_id != listed[citing][0]:
            moved.setdefault(listed[citing][0], []).append(pk)
    if dropped:
        Citation.objects.filter(any_of("pk", dropped)).delete()
    for work_id, pks in moved.items():  # a record now written to another work (merges)
        Citation.objects.filter(any_of("pk", pks)).update(citing_id=work_id)
    fresh = sorted(wanted - held)
    ours = held_works({cited for _, cited in fresh})
    rows = [
        (listed[citing][0], citing, cited, ours.get(cited), now if cited in ours else None)
        for citing, cited in fresh
    ]
    fields = ["citing", "citing_openalex_id", "cited_openalex_id", "cited", "linked_at"]
    insert_rows(Citation, fields, rows, ignore_conflicts=True)
    return touched | set(ours.values())


LOOKUP_CHUNK = 5000  # ids per look-up: SQLite takes at most 32,766 parameters


def held_works(openalex_ids: set[str]) -> dict[str, int]:
    """Our work for each W id we hold (the work it was merged into, if so)."""
    ids, found = sorted(openalex_ids), {}
    for start in range(0, len(ids), LOOKUP_CHUNK):
        chunk = ids[start : start + LOOKUP_CHUNK]
        own = Work.objects.filter(present_in("openalex_id", chunk)).values_list(
            "openalex_id", Coalesce("merged_into_id", "pk")
        )
        found.update(own)
        rest = [ident for ident in chunk if ident not in found]
        if rest:
            recorded = SourceRecord.objects.filter(
                any_of("external_id", rest),
                source=Source.OPENALEX,
                entity=SourceRecord.Entity.WORK,
                work__isnull=False,
            ).values_list("external_id", Coalesce("work__merged_into_id", "work_id"))
            found.update(recorded)
    return found


def held_work(openalex_id) -> Subquery:
    """Our work for an OpenAlex W id (the work it was merged into, if so), or NULL.

    A W id is found as a work's own id or as the key of an OpenAlex source record
    written to a work (a second OpenAlex record of one work keeps its id there).
    """
    # The conditions of the partial unique index on openalex_id, so the planner uses it.
    own = (
        Work.objects.filter(openalex_id=openalex_id, openalex_id__isnull=False)
        .exclude(openalex_id="")
        .values(target=Coalesce("merged_into_id", "pk"))[:1]
    )
    recorded = SourceRecord.objects.filter(
        source=Source.OPENALEX,
        entity=SourceRecord.Entity.WORK,
        external_id=openalex_id,
        work__isnull=False,
    ).values(target=Coalesce("work__merged_into_id", "work_id"))[:1]
    return Coalesce(Subquery(own), Subquery(recorded))


def _resolve_arrivals(arrived: set[str], now) -> set[int]:
    """Point the links waiting for the works that arrived at them (one UPDATE)."""
    waiting = Citation.objects.filter(any_of("cited_openalex_id", arrived), cited__isnull=True)
    if not waiting.update(cited_id=held_work(OuterRef("cited_openalex_id")), linked_at=now):
        return set()
    linked = Citation.objects.filter(any_of("cited_openalex_id", arrived), linked_at=now)
    touched = set(linked.filter(cited__isnull=False).values_list("cited_id", flat=True).distinct())
    linked.filter(cited__isnull=True).update(linked_at=None)  # a W id we do not hold after all
    return touched


__all__ = ["held_work", "held_works", "write_citations"]

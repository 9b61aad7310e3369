"""Citation links of a batch: each OpenAlex record's reference list, and works that arrive.

A link is kept by the cited work's OpenAlex id whether or not we hold that work,
and pointed at our work in the same batch that brings either end: a record's
references are resolved when they are written, and a work's arrival resolves
every link already waiting for it. Everything is a few statements per batch.
"""

from __future__ import annotations

from functools import reduce
from operator import or_

from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from publications.ingest.rows import any_of, insert_rows
from publications.models import Citation, Source, SourceRecord, Work
from publications.records import WorkRecord


def write_citations(items: list[tuple[int, WorkRecord]], arrived: set[str]) -> set[int]:
    """Make each record's links what its reference list says; resolve links to ``arrived``.

    ``items`` pairs a work id with the OpenAlex record written to it (records that
    did not say what they cite are left as they are). ``arrived`` holds the
    OpenAlex ids of the works the batch wrote. Returns the ids of cited works
    whose citations changed (a link gained or lost).
    """
    listed = {r.external_id: (work_id, r) for work_id, r in items if _lists_references(r)}
    touched = _replace_links(listed) if listed else set()
    touched |= _resolve(set(listed), arrived)
    touched.discard(None)
    return touched


def _lists_references(record: WorkRecord) -> bool:
    return record.source == Source.OPENALEX and record.referenced_works is not None


def _replace_links(listed: dict[str, tuple[int, WorkRecord]]) -> set[int]:
    """Drop the links a record no longer lists, add the new ones, follow a record to its work."""
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
    rows = [(listed[citing][0], citing, cited) for citing, cited in sorted(wanted - held)]
    insert_rows(
        Citation, ["citing", "citing_openalex_id", "cited_openalex_id"], rows, ignore_conflicts=True
    )
    return touched


def held_work(openalex_id) -> Subquery:
    """Our work for an OpenAlex W id (the work it was merged into, if so), or NULL.

    A W id is found as a work's own id or as the key of an OpenAlex source record
    written to a work (a second OpenAlex record of one work keeps its id there).
    """
    own = Work.objects.filter(openalex_id=openalex_id).values(
        target=Coalesce("merged_into_id", "pk")
    )[:1]
    recorded = SourceRecord.objects.filter(
        source=Source.OPENALEX,
        entity=SourceRecord.Entity.WORK,
        external_id=openalex_id,
        work__isnull=False,
    ).values(target=Coalesce("work__merged_into_id", "work_id"))[:1]
    return Coalesce(Subquery(own), Subquery(recorded))


def _resolve(citing_ids: set[str], arrived: set[str]) -> set[int]:
    """Point unresolved links of ``citing_ids`` and every link to ``arrived`` at our works."""
    scopes = []
    if citing_ids:
        scopes.append(any_of("citing_openalex_id", citing_ids))
    if arrived:
        scopes.append(any_of("cited_openalex_id", arrived))
    if not scopes:
        return set()
    links = Citation.objects.filter(reduce(or_, scopes))
    target = held_work(OuterRef("cited_openalex_id"))
    links.filter(cited__isnull=True).update(cited_id=target)
    if arrived:
        # A link already resolved follows the work it names when that moved (a merge).
        links.filter(any_of("cited_openalex_id", arrived), cited__isnull=False).update(
            cited_id=target
        )
    fresh = links.filter(cited__isnull=False, linked_at__isnull=True)
    touched = set(fresh.values_list("cited_id", flat=True).distinct())
    if touched:
        fresh.update(linked_at=timezone.now())
    links.filter(cited__isnull=True, linked_at__isnull=False).update(linked_at=None)
    return touched


__all__ = ["held_work", "write_citations"]

"""Merge one work into another, and undo it."""

from __future__ import annotations

from django.db import transaction

from catalogue.audit import Actor, audit_record
from catalogue.models import (
    AuditEvent,
    Authorship,
    Grant,
    MergeCandidate,
    SourceRecord,
    Work,
    WorkTopic,
)
from curation.constraints import (
    MUST,
    candidate_decide,
    candidate_restore,
    candidates_follow_merge,
    candidates_restore,
    constraint_set,
    constraints_restore,
    merge_check,
    metrics_refresh,
)
from ingestion.ingest.merge import FIELDS as WORK_RECORD_FIELDS

# Blank fields of a kept work are filled from the work merged into it.
WORK_FILL_FIELDS = [*WORK_RECORD_FIELDS, "venue_id", "normalized_title", "first_author_surname"]
UNIQUE_WORK_IDS = {"doi", "arxiv_id", "openalex_id"}


def _blank(value) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _work_fill_blanks(kept: Work, other: Work) -> tuple[dict, dict]:
    """Fill the kept work's blanks from the other; ids move (they are unique) instead of copy."""
    filled, moved_ids = {}, {}
    for field in WORK_FILL_FIELDS:
        mine, theirs = getattr(kept, field), getattr(other, field)
        if not _blank(mine) or _blank(theirs):
            continue
        filled[field] = mine
        if field in UNIQUE_WORK_IDS:
            moved_ids[field] = theirs
            setattr(other, field, None)
        setattr(kept, field, theirs)
        key = field.removesuffix("_id") if field == "venue_id" else field
        if key in other.provenance:
            kept.provenance[key] = other.provenance[key]
    return filled, moved_ids


def _work_move_rows(kept: Work, other: Work) -> dict:
    """Move what the other work has and the kept one lacks; return the moved ids."""
    kept_authors = Authorship.objects.filter(work=kept).values("author_id")
    kept_topics = WorkTopic.objects.filter(work=kept).values("topic_id")
    kept_grants = set(Grant.objects.filter(work=kept).values_list("funder_id", "award_id"))
    moved = {
        "authorships": list(
            Authorship.objects.filter(work=other)
            .exclude(author_id__in=kept_authors)
            .values_list("pk", flat=True)
        ),
        "topics": list(
            WorkTopic.objects.filter(work=other)
            .exclude(topic_id__in=kept_topics)
            .values_list("pk", flat=True)
        ),
        "grants": [
            pk
            for pk, funder, award in Grant.objects.filter(work=other).values_list(
                "pk", "funder_id", "award_id"
            )
            if (funder, award) not in kept_grants
        ],
        "source_records": list(
            SourceRecord.objects.filter(work=other).values_list("pk", flat=True)
        ),
    }
    for model, key in _WORK_ROWS:
        model.objects.filter(pk__in=moved[key]).update(work=kept)
    return moved


_WORK_ROWS = [
    (Authorship, "authorships"),
    (WorkTopic, "topics"),
    (Grant, "grants"),
    (SourceRecord, "source_records"),
]


def work_merge(
    *, source: Work, target: Work, actor: Actor, candidate: MergeCandidate | None = None
) -> AuditEvent:
    """Merge ``source`` into ``target``: move what target lacks, fill its blanks, hide source."""
    with transaction.atomic():
        kept = Work.objects.select_for_update().get(pk=target.pk)
        other = Work.objects.select_for_update().get(pk=source.pk)
        merge_check(other, kept, "work")
        before_provenance = dict(kept.provenance)
        moved = _work_move_rows(kept, other)
        filled, moved_ids = _work_fill_blanks(kept, other)
        other.merged_into = kept
        other.save()  # first: the ids it gives up must be free before the kept work takes them
        kept.save()
        changes: dict = {}
        reason = "Merged by staff" + (f" (merge candidate #{candidate.pk})" if candidate else "")
        constraint_set(
            changes, kind=MUST, actor=actor, reason=reason, work_id=kept.pk, other_work_id=other.pk
        )
        decided = (
            candidate_decide(candidate, MergeCandidate.Status.MERGED, actor) if candidate else None
        )
        followed = candidates_follow_merge(
            kind=MergeCandidate.Kind.WORK, source_id=other.pk, target_id=kept.pk, actor=actor
        )
        metrics_refresh(
            Authorship.objects.filter(work__in=[kept, other]).values_list("author_id", flat=True)
        )
        return audit_record(
            actor=actor,
            action="work_merge",
            target=kept,
            data={
                "source": other.pk,
                "target": kept.pk,
                "moved": moved,
                "filled": filled,
                "moved_ids": moved_ids,
                "provenance": before_provenance,
                "constraints": changes,
                "candidate": decided,
                "followed": followed,
            },
        )


def work_merge_undo(data: dict) -> dict:
    kept = Work.objects.select_for_update().get(pk=data["target"])
    other = Work.objects.select_for_update().get(pk=data["source"])
    if other.merged_into_id != kept.pk:
        raise ValueError(f"Work #{other.pk} is no longer merged into #{kept.pk}; nothing to undo.")
    for model, key in _WORK_ROWS:
        model.objects.filter(pk__in=data["moved"][key], work=kept).update(work=other)
    for field, value in data["filled"].items():
        setattr(kept, field, value)
    kept.provenance = data["provenance"]
    kept.save()  # first: it gives the moved ids back
    for field, value in data["moved_ids"].items():
        setattr(other, field, value)
    other.merged_into = None
    other.save()
    constraints_restore(data["constraints"])
    candidates_restore(data.get("followed", []))
    candidate_restore(data.get("candidate"))
    metrics_refresh(
        Authorship.objects.filter(work__in=[kept, other]).values_list("author_id", flat=True)
    )
    return {"source": other.pk, "target": kept.pk}

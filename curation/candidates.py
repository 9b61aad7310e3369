"""Decide a merge candidate: merge the pair, or keep it apart for good."""

from __future__ import annotations

from django.db import transaction

from catalogue.audit import Actor, audit_record
from catalogue.models import (
    AuditEvent,
    MergeCandidate,
)
from curation.authors import author_merge
from curation.constraints import (
    CANNOT,
    candidate_decide,
    candidate_restore,
    constraint_set,
    constraints_restore,
)
from curation.works import work_merge


def _open_candidate(candidate: MergeCandidate) -> MergeCandidate:
    candidate = MergeCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status != MergeCandidate.Status.OPEN:
        raise ValueError(f"This candidate was already decided: {candidate.get_status_display()}.")
    return candidate


def merge_candidate_merge(*, candidate: MergeCandidate, actor: Actor) -> AuditEvent:
    """Staff say the pair is one record: merge b into a, and remember it.

    A side merged away since the candidate was raised stands for the record it
    was merged into.
    """
    with transaction.atomic():
        candidate = _open_candidate(candidate)
        author = candidate.kind == MergeCandidate.Kind.AUTHOR
        left, right = (
            (candidate.author_a, candidate.author_b)
            if author
            else (candidate.work_a, candidate.work_b)
        )
        left, right = _surviving(left), _surviving(right)
        if left.pk == right.pk:
            before = candidate_decide(candidate, MergeCandidate.Status.SUPERSEDED, actor)
            return audit_record(
                actor=actor,
                action="merge_candidate_supersede",
                target=candidate,
                data={"candidate": before, "record": left.pk},
            )
        merge = author_merge if author else work_merge
        return merge(source=right, target=left, actor=actor, candidate=candidate)


def _surviving(record):
    """The record that ``record`` was merged into, following the chain, or itself."""
    seen = {record.pk}
    while record.merged_into_id and record.merged_into_id not in seen:
        record = type(record).objects.get(pk=record.merged_into_id)
        seen.add(record.pk)
    return record


def merge_candidate_keep_apart(
    *, candidate: MergeCandidate, actor: Actor, by: str = "staff"
) -> AuditEvent:
    """Staff (or the owner of one side, ``by``) say the pair are two records: later
    imports never raise the pair again."""
    with transaction.atomic():
        candidate = _open_candidate(candidate)
        changes: dict = {}
        if candidate.kind == MergeCandidate.Kind.AUTHOR:
            pair = {"author_id": candidate.author_a_id, "other_author_id": candidate.author_b_id}
        else:
            pair = {"work_id": candidate.work_a_id, "other_work_id": candidate.work_b_id}
        reason = f"Kept apart by {by} (merge candidate #{candidate.pk})"
        constraint_set(changes, kind=CANNOT, actor=actor, reason=reason, **pair)
        before = candidate_decide(candidate, MergeCandidate.Status.KEPT_APART, actor)
        return audit_record(
            actor=actor,
            action="merge_candidate_keep_apart",
            target=candidate,
            data={"candidate": before, "constraints": changes},
        )


def merge_candidate_keep_apart_undo(data: dict) -> dict:
    constraints_restore(data["constraints"])
    candidate_restore(data["candidate"])
    return {"candidate": data["candidate"]["id"]}

"""What merges, splits and their undos record and put back.

Staff decisions that imports must obey are stored as LinkConstraints; merge
candidates follow a merge. Every change is returned as data an undo restores.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalogue.audit import Actor
from catalogue.models import (
    Author,
    LinkConstraint,
    MergeCandidate,
    Source,
)

MUST, CANNOT = LinkConstraint.Kind.MUST_LINK, LinkConstraint.Kind.CANNOT_LINK


# Link constraints, recorded so an undo can put earlier decisions back ---------


def pair_query(*, author_id=None, work_id=None, other_author_id=None, other_work_id=None) -> Q:
    if other_author_id:
        return Q(author_id=author_id, other_author_id=other_author_id) | Q(
            author_id=other_author_id, other_author_id=author_id
        )
    if other_work_id:
        return Q(work_id=work_id, other_work_id=other_work_id) | Q(
            work_id=other_work_id, other_work_id=work_id
        )
    return Q(author_id=author_id, work_id=work_id, other_author__isnull=True)


def _constraint_dump(row: LinkConstraint) -> dict:
    return {
        "id": row.pk,
        "kind": row.kind,
        "author_id": row.author_id,
        "work_id": row.work_id,
        "other_author_id": row.other_author_id,
        "other_work_id": row.other_work_id,
        "source": row.source,
        "reason": row.reason,
        "created_by_id": row.created_by_id,
    }


def constraint_set(changes: dict, *, kind: str, actor: Actor, reason: str, **pair) -> None:
    """Store a staff decision about a pair, replacing an earlier decision about the same pair."""
    earlier = LinkConstraint.objects.filter(pair_query(**pair))
    changes.setdefault("replaced", []).extend(_constraint_dump(row) for row in earlier)
    earlier.delete()
    row = LinkConstraint.objects.create(
        kind=kind, source=Source.STAFF, reason=reason, created_by=actor, **pair
    )
    changes.setdefault("created", []).append(row.pk)


def constraints_restore(changes: dict) -> None:
    LinkConstraint.objects.filter(pk__in=changes.get("created", [])).delete()
    LinkConstraint.objects.bulk_create(
        [LinkConstraint(**row) for row in changes.get("replaced", [])]
    )


# Merge candidates ------------------------------------------------------------


def candidate_decide(candidate: MergeCandidate, status: str, actor: Actor) -> dict:
    before = {
        "id": candidate.pk,
        "status": candidate.status,
        "decided_by_id": candidate.decided_by_id,
        "decided_at": candidate.decided_at.isoformat() if candidate.decided_at else None,
    }
    candidate.status = status
    candidate.decided_by = actor
    candidate.decided_at = timezone.now()
    candidate.save(update_fields=["status", "decided_by", "decided_at"])
    return before


def candidate_restore(before: dict | None) -> None:
    if not before:
        return
    decided_at = before["decided_at"] and datetime.fromisoformat(before["decided_at"])
    MergeCandidate.objects.filter(pk=before["id"]).update(
        status=before["status"], decided_by_id=before["decided_by_id"], decided_at=decided_at
    )


def candidates_follow_merge(*, kind: str, source_id: int, target_id: int, actor: Actor) -> list:
    """Point the open candidates naming the merged-away record at the one that stays.

    A candidate that would then pair the record with itself, repeat a pair already
    raised, or pair two records staff kept apart is closed as superseded instead,
    so no pair is raised twice. Returns what ``candidates_restore`` puts back.
    """
    a, b = (
        ("author_a_id", "author_b_id")
        if kind == MergeCandidate.Kind.AUTHOR
        else ("work_a_id", "work_b_id")
    )
    rows = MergeCandidate.objects.select_for_update().filter(
        Q(**{a: source_id}) | Q(**{b: source_id}), kind=kind, status=MergeCandidate.Status.OPEN
    )
    before = []
    for candidate in rows.order_by("pk"):
        sides = [getattr(candidate, a), getattr(candidate, b)]
        left, right = (target_id if side == source_id else side for side in sides)
        before.append({"id": candidate.pk, a: getattr(candidate, a), b: getattr(candidate, b)})
        if _pair_taken(kind, left, right, exclude=candidate.pk):
            before[-1]["decision"] = candidate_decide(
                candidate, MergeCandidate.Status.SUPERSEDED, actor
            )
            continue
        setattr(candidate, a, left)
        setattr(candidate, b, right)
        candidate.save(update_fields=[a.removesuffix("_id"), b.removesuffix("_id")])
    return before


def _pair_taken(kind: str, left: int, right: int, *, exclude: int) -> bool:
    if left == right:
        return True
    a, b = (
        ("author_a_id", "author_b_id")
        if kind == MergeCandidate.Kind.AUTHOR
        else ("work_a_id", "work_b_id")
    )
    pair = Q(**{a: left, b: right}) | Q(**{a: right, b: left})
    if MergeCandidate.objects.filter(pair, kind=kind).exclude(pk=exclude).exists():
        return True
    ids = (
        {"author_id": left, "other_author_id": right}
        if kind == MergeCandidate.Kind.AUTHOR
        else {"work_id": left, "other_work_id": right}
    )
    return LinkConstraint.objects.filter(pair_query(**ids), kind=CANNOT).exists()


def candidates_restore(rows: list) -> None:
    for row in reversed(rows):
        row = dict(row)
        decision = row.pop("decision", None)
        pk = row.pop("id")
        MergeCandidate.objects.filter(pk=pk).update(**row)
        candidate_restore(decision)


def merge_check(source, target, noun: str) -> None:
    if source.pk == target.pk:
        raise ValueError(f"A {noun} cannot be merged into itself.")
    if source.merged_into_id:
        raise ValueError(
            f"{source} (#{source.pk}) is already merged into #{source.merged_into_id}."
        )
    if target.merged_into_id:
        raise ValueError(
            f"{target} (#{target.pk}) is itself merged into #{target.merged_into_id}; "
            "merge into that record instead."
        )


def metrics_refresh(author_ids) -> None:
    from catalogue import tasks
    from catalogue.signals import authors_changed

    ids = sorted(set(author_ids))

    def follow_up() -> None:
        tasks.refresh_author_metrics.delay(ids)
        authors_changed.send(sender=Author, author_ids=ids)

    if ids:
        transaction.on_commit(follow_up)

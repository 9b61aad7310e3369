"""Folding a provisional record into the record the evidence puts it with.

A provisional record (``records.provisional``) is this site's own guess at a
person from bare bylines. When later evidence (a record with a source id, more
works) puts all of it with another record, its bylines move there and it is
marked merged into that record, so its address leads to the right page. Each
fold is written to the audit trail with what moved.
"""

from __future__ import annotations

from catalogue.models import (
    AuditEvent,
    Author,
    AuthorInstitution,
    Authorship,
    MergeCandidate,
)

ACTION = "identity.fold"


def _final(target: int, absorbed: dict[int, int]) -> int:
    seen = set()
    while target in absorbed and target not in seen:
        seen.add(target)
        target = absorbed[target]
    return target


def fold_records(absorbed: dict[int, int]) -> set[int]:
    """Fold each provisional record into its target; return the ids of both sides."""
    touched: set[int] = set()
    for loose, target in sorted(absorbed.items()):
        target = _final(target, absorbed)
        if target == loose:
            continue
        moved = _fold(loose, target)
        if moved is not None:
            touched |= {loose, target}
    return touched


def _fold(loose: int, target: int) -> list[int] | None:
    record = Author.objects.filter(pk=loose, merged_into__isnull=True).first()
    if record is None or not Author.objects.filter(pk=target).exists():
        return None
    held = set(Authorship.objects.filter(author_id=target).values_list("work_id", flat=True))
    rows = list(Authorship.objects.filter(author_id=loose).values_list("pk", "work_id"))
    moving = [pk for pk, work_id in rows if work_id not in held]
    twice = [pk for pk, work_id in rows if work_id in held]
    Authorship.objects.filter(pk__in=moving).update(author_id=target)
    Authorship.objects.filter(pk__in=twice).delete()
    places = AuthorInstitution.objects.filter(author_id=loose)
    AuthorInstitution.objects.bulk_create(
        [
            AuthorInstitution(
                author_id=target,
                institution_id=p.institution_id,
                source=p.source,
                in_author_record=False,
            )
            for p in places
        ],
        ignore_conflicts=True,
    )
    record.merged_into_id = target
    record.save(update_fields=["merged_into"])
    MergeCandidate.objects.filter(status=MergeCandidate.Status.OPEN).filter(
        author_a_id__in=[loose, target], author_b_id__in=[loose, target]
    ).update(status=MergeCandidate.Status.SUPERSEDED)
    AuditEvent.objects.create(
        actor=None,
        action=ACTION,
        target_type="author",
        target_id=str(loose),
        target_repr=record.display_name[:300],
        data={"into": target, "moved": moving, "dropped_twice": twice},
    )
    return moving

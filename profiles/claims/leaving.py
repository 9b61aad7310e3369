""" "Not mine" kept as an identity request, and put back exactly from its audit event.

Each work the owner takes off their record (``ownership.work_disown``) is kept as
an applied IdentityRequest of kind ``leave_work``, saying why the record held the
work (the link's evidence) and naming the audit event that can put it back.
The owner may always take a work off their own record at once: it only narrows
what the record says about them, their claim proved who they are, and the
cannot-link it leaves keeps later imports from bringing the work back. Staff
see every such request and can undo it (``work_disown_undo``); "Put back"
(``ownership.work_restore``) undoes it for the owner.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    IdentityRequest,
    LinkConstraint,
    Source,
    Work,
)
from profiles.models import Profile

LEAVE = IdentityRequest.Kind.LEAVE_WORK


def link_evidence(authorship: Authorship) -> str:
    """Why the record holds the work: the link's evidence, or (for links older than it)
    the source that made it."""
    if authorship.evidence:
        return authorship.evidence
    label = Source(authorship.source).label if authorship.source in Source.values else "a source"
    return f"Linked by {label}"


def authorship_dump(authorship: Authorship) -> dict:
    """The whole row, so an undo writes it back as it was."""
    return {
        "position": authorship.position,
        "raw_name": authorship.raw_name,
        "raw_affiliation": authorship.raw_affiliation,
        "is_corresponding": authorship.is_corresponding,
        "source": authorship.source,
        "confidence": authorship.confidence,
        "evidence": authorship.evidence,
        "institutions": sorted(i.pk for i in authorship.institutions.all()),
    }


def leave_recorded(
    *, author: Author, work: Work, actor, event: AuditEvent, evidence: str
) -> IdentityRequest:
    """The request of the work just taken off ``author``: the owner's pending one,
    now applied by ``actor`` (staff), or a new one applied at once."""
    now = timezone.now()
    waiting = IdentityRequest.objects.filter(
        author=author, work=work, kind=LEAVE, status=IdentityRequest.Status.PENDING
    ).first()
    if waiting is not None:
        waiting.status, waiting.audit_event = IdentityRequest.Status.APPLIED, event
        waiting.decided_by, waiting.decided_at = actor, now
        waiting.save(update_fields=["status", "audit_event", "decided_by", "decided_at"])
        return waiting
    return IdentityRequest.objects.create(
        kind=LEAVE,
        author=author,
        work=work,
        evidence=f"Was on the record by: {evidence}"[:300],
        status=IdentityRequest.Status.APPLIED,
        audit_event=event,
        requested_by=actor,
        decided_at=now,
    )


def leave_undone(*, author: Author, work: Work) -> None:
    """The work is back on the record: its "not mine" request is undone."""
    IdentityRequest.objects.filter(
        author=author, work=work, kind=LEAVE, status=IdentityRequest.Status.APPLIED
    ).update(status=IdentityRequest.Status.UNDONE)


def work_disown_undo(data: dict) -> dict:
    """Put a work taken off a record back as it was: its authorship, the decision the
    cannot-link replaced, and its pin."""
    constraint = LinkConstraint.objects.filter(
        pk=data.get("constraint_id"), kind=LinkConstraint.Kind.CANNOT_LINK
    ).first()
    if constraint is None:
        raise ValueError("The work was put back, or decided again, since; nothing to undo.")
    author_id, work_id = constraint.author_id, constraint.work_id
    if Authorship.objects.filter(author_id=author_id, work_id=work_id).exists():
        raise ValueError("The work is on the record again; nothing to undo.")
    row = dict(data["authorship"])
    institutions = row.pop("institutions", [])
    link = Authorship.objects.create(work_id=work_id, author_id=author_id, **row)
    link.institutions.set(institutions)
    constraint.delete()
    replaced = data.get("replaced")
    if replaced:
        LinkConstraint.objects.create(author_id=author_id, work_id=work_id, **replaced)
    profile = Profile.objects.filter(author_id=author_id).first()
    if data.get("pinned") and profile is not None:
        profile.pinned_works.add(work_id)
    IdentityRequest.objects.filter(
        author_id=author_id, work_id=work_id, kind=LEAVE, status=IdentityRequest.Status.APPLIED
    ).update(status=IdentityRequest.Status.UNDONE)
    _refresh(author_id)
    return {"author": author_id, "work": work_id}


def _refresh(author_id: int) -> None:
    def follow_up() -> None:
        from catalogue import signals, tasks

        tasks.refresh_author_metrics.delay([author_id])
        signals.authors_changed.send(sender=Profile, author_ids=[author_id])

    transaction.on_commit(follow_up)

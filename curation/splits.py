"""Decide a split proposal: split the record into its groups, or keep it whole.

A proposal (``ingestion.people.splits``) lists groups of a record's works that
look like different people, largest first. Splitting keeps the largest group
(and the works in no group) on the record and moves each other group to a new
record with ``author_split``, which stores the cannot-links later imports obey
and writes its own undoable audit event; keeping it whole closes the proposal,
and the check does not propose the same split again.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from catalogue.audit import Actor, audit_record
from catalogue.models import AuditEvent, Authorship, SplitProposal
from curation.authors import author_split


def _open_proposal(proposal: SplitProposal) -> SplitProposal:
    proposal = SplitProposal.objects.select_for_update().get(pk=proposal.pk)
    if proposal.status != SplitProposal.Status.OPEN:
        raise ValueError(f"This proposal was already decided: {proposal.get_status_display()}.")
    return proposal


def _decide(proposal: SplitProposal, status: str, actor: Actor) -> dict:
    before = {"id": proposal.pk, "status": proposal.status}
    proposal.status = status
    proposal.decided_by = actor
    proposal.decided_at = timezone.now()
    proposal.save(update_fields=["status", "decided_by", "decided_at"])
    return before


def split_proposal_split(*, proposal: SplitProposal, actor: Actor) -> AuditEvent:
    """Staff say the groups are different people: each group but the largest becomes a
    record of its own (the works the record still holds of it)."""
    with transaction.atomic():
        proposal = _open_proposal(proposal)
        author = proposal.author
        if author.merged_into_id:
            raise ValueError(f"{author} was merged into another record since the proposal.")
        held = set(Authorship.objects.filter(author=author).values_list("work_id", flat=True))
        groups = sorted(proposal.groups, key=lambda g: len(g.get("work_ids", ())), reverse=True)
        made = []
        for group in groups[1:]:
            work_ids = sorted(held & {int(w) for w in group.get("work_ids", ())})
            if work_ids:
                new = author_split(author=author, work_ids=work_ids, actor=actor)
                made.append({"author": new.pk, "work_ids": work_ids})
        if not made:
            raise ValueError(f"{author} no longer holds the works of the other groups.")
        before = _decide(proposal, SplitProposal.Status.SPLIT, actor)
        return audit_record(
            actor=actor,
            action="split_proposal_split",
            target=proposal,
            data={"proposal": before, "author": author.pk, "new_records": made},
        )


def split_proposal_keep_whole(*, proposal: SplitProposal, actor: Actor) -> AuditEvent:
    """Staff say the record is one person: the same split is not proposed again."""
    with transaction.atomic():
        proposal = _open_proposal(proposal)
        before = _decide(proposal, SplitProposal.Status.KEPT_WHOLE, actor)
        return audit_record(
            actor=actor,
            action="split_proposal_keep_whole",
            target=proposal,
            data={"proposal": before, "author": proposal.author_id},
        )


def split_proposal_keep_whole_undo(data: dict) -> dict:
    """Open the proposal again, unless the record has another open one by now."""
    proposal = SplitProposal.objects.select_for_update().get(pk=data["proposal"]["id"])
    others = SplitProposal.objects.filter(
        author_id=proposal.author_id, status=SplitProposal.Status.OPEN
    ).exclude(pk=proposal.pk)
    if others.exists():
        raise ValueError("A later check has proposed another split of this record since.")
    proposal.status = data["proposal"]["status"]
    proposal.decided_by = None
    proposal.decided_at = None
    proposal.save(update_fields=["status", "decided_by", "decided_at"])
    return {"proposal": proposal.pk}

"""Undo a staff decision from its audit event."""

from __future__ import annotations

from django.db import transaction

from catalogue.audit import UNDO, Actor, audit_record, audit_undo_event
from catalogue.models import AuditEvent, IdentityRequest
from curation.authors import author_merge_undo, author_split_undo
from curation.candidates import merge_candidate_keep_apart_undo
from curation.identity_requests import identity_byline_join_undo, identity_request_reject_undo
from curation.splits import split_proposal_keep_whole_undo
from curation.works import work_merge_undo
from profiles.claims.leaving import work_disown_undo


def audit_is_undoable(event: AuditEvent) -> bool:
    return event.action in UNDOERS


def audit_undo(*, event: AuditEvent, actor: Actor) -> AuditEvent:
    """Reverse a merge, split or candidate decision from its event and record the undo."""
    with transaction.atomic():
        event = AuditEvent.objects.select_for_update().get(pk=event.pk)
        if not audit_is_undoable(event):
            raise ValueError(f"A '{event.action}' event cannot be undone.")
        if audit_undo_event(event) is not None:
            raise ValueError(f"Event #{event.pk} ({event.action}) has already been undone.")
        details = UNDOERS[event.action](event.data)
        # An owner's request applied by this event is undone with it.
        IdentityRequest.objects.filter(
            audit_event=event, status=IdentityRequest.Status.APPLIED
        ).update(status=IdentityRequest.Status.UNDONE)
        return audit_record(
            actor=actor,
            action=UNDO,
            target=event,
            data={"undoes": event.pk, "action": event.action, **details},
        )


UNDOERS = {
    "author_merge": author_merge_undo,
    "author_split": author_split_undo,
    "work_merge": work_merge_undo,
    "merge_candidate_keep_apart": merge_candidate_keep_apart_undo,
    "split_proposal_keep_whole": split_proposal_keep_whole_undo,
    "identity_byline_join": identity_byline_join_undo,
    "identity_request_reject": identity_request_reject_undo,
    "work_disown": work_disown_undo,
}


def identity_request_undo(*, identity_request: IdentityRequest, actor: Actor) -> AuditEvent:
    """Undo what an applied identity request changed, from its audit event."""
    if identity_request.status != IdentityRequest.Status.APPLIED:
        raise ValueError("Only a request that was applied can be undone.")
    if identity_request.audit_event_id is None:
        raise ValueError("This request keeps no audit event to undo.")
    return audit_undo(event=identity_request.audit_event, actor=actor)

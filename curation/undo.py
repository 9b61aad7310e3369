"""Undo a staff decision from its audit event."""

from __future__ import annotations

from django.db import transaction

from catalogue.audit import UNDO, Actor, audit_record, audit_undo_event
from catalogue.models import AuditEvent
from curation.authors import author_merge_undo, author_split_undo
from curation.candidates import merge_candidate_keep_apart_undo
from curation.works import work_merge_undo


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
}

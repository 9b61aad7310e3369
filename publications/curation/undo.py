"""Undo a staff decision from its audit event."""

from __future__ import annotations

from django.db import transaction

from publications.curation.audit import UNDO, Actor, audit_record, audit_undo_event
from publications.curation.authors import _undo_author_merge, _undo_author_split
from publications.curation.candidates import _undo_keep_apart
from publications.curation.works import _undo_work_merge
from publications.models import AuditEvent


def audit_is_undoable(event: AuditEvent) -> bool:
    return event.action in _UNDOERS


def audit_undo(*, event: AuditEvent, actor: Actor) -> AuditEvent:
    """Reverse a merge, split or candidate decision from its event and record the undo."""
    with transaction.atomic():
        event = AuditEvent.objects.select_for_update().get(pk=event.pk)
        if not audit_is_undoable(event):
            raise ValueError(f"A '{event.action}' event cannot be undone.")
        if audit_undo_event(event) is not None:
            raise ValueError(f"Event #{event.pk} ({event.action}) has already been undone.")
        details = _UNDOERS[event.action](event.data)
        return audit_record(
            actor=actor,
            action=UNDO,
            target=event,
            data={"undoes": event.pk, "action": event.action, **details},
        )


_UNDOERS = {
    "author_merge": _undo_author_merge,
    "author_split": _undo_author_split,
    "work_merge": _undo_work_merge,
    "merge_candidate_keep_apart": _undo_keep_apart,
}

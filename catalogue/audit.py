"""The audit trail: who did what, when, to which record."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models

from catalogue.models import AuditEvent

Actor = AbstractBaseUser | None
UNDO = "audit_event_undo"


def audit_record(*, actor: Actor, action: str, target: models.Model, data: dict) -> AuditEvent:
    """Write one entry of the audit trail: who did ``action`` to ``target``, and the details."""
    return AuditEvent.objects.create(
        actor=actor,
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        target_repr=str(target)[:300],
        data=data,
    )


def audit_undo_event(event: AuditEvent) -> AuditEvent | None:
    """The event that undid ``event``, if any."""
    return AuditEvent.objects.filter(
        action=UNDO, target_type=AuditEvent._meta.label_lower, target_id=str(event.pk)
    ).first()

"""The audit trail of staff and owner decisions."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalogue.fields import JSONField


class AuditEvent(models.Model):
    """Who did what, when, to which record: every staff and owner decision."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=64, db_index=True)
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    target_repr = models.CharField(max_length=300, blank=True)
    data = JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target_idx")]

    def __str__(self) -> str:
        return f"{self.action} {self.target_type}:{self.target_id}"

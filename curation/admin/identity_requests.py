"""The admin of owners' identity requests: "that record is me too", "that byline is mine".

The list shows the requests waiting for staff first; a request's page says what
the owner asked, on what evidence, and offers to approve it (applied by the same
services as an id-level request, ``curation.identity_requests``) or turn it down.
Both are audited; an approval is undone from the audit trail.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Case, IntegerField, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html

import curation
from catalogue import models
from curation.admin.views import CurationAdmin

PENDING = models.IdentityRequest.Status.PENDING


class IdentityRequestViews:
    """Approve or turn down a request an owner made about who is who."""

    curation_routes = [
        ("<int:object_id>/approve/", "approve_view", True),
        ("<int:object_id>/reject/", "reject_view", True),
    ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        asked = self.get_object(request, object_id)
        buttons, note = [], None
        if asked is not None:
            note = format_html(
                "{} asks: {} ({}). Evidence: {}",
                asked.author,
                asked.get_kind_display(),
                self.target(asked),
                asked.evidence or "none given",
            )
            if asked.status == PENDING and self.has_change_permission(request, asked):
                approve, reject = (
                    self.curation_url("approve", asked.pk),
                    self.curation_url("reject", asked.pk),
                )
                buttons = [
                    {"url": approve, "label": "Approve and apply", "style": "default"},
                    {"url": reject, "label": "Turn down", "style": "danger"},
                ]
        context = {"curation_note": note, "title": "Review identity request"}
        return self.read_only_change_view(
            request, object_id, buttons, {**context, **(extra_context or {})}
        )

    def approve_view(self, request, object_id):
        asked = get_object_or_404(models.IdentityRequest, pk=object_id)
        approve = curation.identity_request_approve
        done = f"Applied: {asked}. Undo it from the audit trail."
        return self.decide(request, asked, approve, done, identity_request=asked)

    def reject_view(self, request, object_id):
        asked = get_object_or_404(models.IdentityRequest, pk=object_id)
        reject = curation.identity_request_reject
        return self.decide(request, asked, reject, f"Turned down: {asked}.", identity_request=asked)


@admin.register(models.IdentityRequest)
class IdentityRequestAdmin(IdentityRequestViews, CurationAdmin):
    list_display = ["author", "kind", "target", "evidence", "id_level", "decision", "asked_on"]
    list_filter = ["status", "kind", "id_level"]
    search_fields = ["author__display_name", "other_author__display_name", "work__title"]
    list_select_related = ["author", "other_author", "work", "decided_by"]
    actions = ["approve_selected", "reject_selected"]
    change_form_template = "admin/publications/curation_change_form.html"

    def get_ordering(self, request):
        waiting_first = Case(
            When(status=PENDING, then=Value(0)), default=Value(1), output_field=IntegerField()
        )
        return [waiting_first.asc(), "-created_at"]

    @admin.display(description="what")
    def target(self, asked):
        if asked.other_author_id:
            return f"record {asked.other_author} (#{asked.other_author_id})"
        place = f", author {asked.position + 1}" if asked.position is not None else ""
        return f"work {asked.work}{place}"

    @admin.display(description="decision", ordering="status")
    def decision(self, asked):
        if asked.status == PENDING:
            return "Waiting"
        if asked.decided_by_id is None:
            return f"{asked.get_status_display()} at once"
        return f"{asked.get_status_display()} by {asked.decided_by}"

    @admin.display(description="asked", ordering="created_at")
    def asked_on(self, asked):
        return date_format(timezone.localtime(asked.created_at), "j M Y")

    @admin.action(description="Approve and apply the selected requests", permissions=["change"])
    def approve_selected(self, request, queryset):
        approve = curation.identity_request_approve
        self.bulk(request, queryset, approve, "requests applied", name="identity_request")

    @admin.action(description="Turn down the selected requests", permissions=["change"])
    def reject_selected(self, request, queryset):
        reject = curation.identity_request_reject
        self.bulk(request, queryset, reject, "requests turned down", name="identity_request")

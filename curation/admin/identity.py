"""The admin of split proposals: records whose works look like several people.

The list shows the open proposals first; a proposal's page lists each group of
works with its summary and titles, and staff split the record (each group but
the largest becomes a new record, ``curation.splits``) or keep it whole. Both
decisions are audited; the list offers them for several proposals at once.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Case, IntegerField, Value, When
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.formats import date_format

import curation
from catalogue import models
from curation import selectors
from curation.admin.views import CurationAdmin

OPEN = models.SplitProposal.Status.OPEN


class SplitProposalViews:
    """Review a record that may hold several people: split it or keep it whole."""

    curation_routes = [
        ("<int:object_id>/split/", "split_view", True),
        ("<int:object_id>/keep-whole/", "keep_whole_view", True),
    ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        proposal = self.get_object(request, object_id)
        context = {}
        if proposal is not None:
            context = {
                "groups": selectors.split_groups(proposal),
                "can_decide": proposal.status == OPEN
                and self.has_change_permission(request, proposal),
                "split_url": self.curation_url("split", proposal.pk),
                "keep_whole_url": self.curation_url("keep_whole", proposal.pk),
                "decision_event": selectors.split_decision_event(proposal),
                "title": "Review split proposal",
            }
        return self.read_only_change_view(
            request, object_id, [], {**context, **(extra_context or {})}
        )

    def split_view(self, request, object_id):
        proposal = get_object_or_404(models.SplitProposal, pk=object_id)
        split = curation.split_proposal_split
        done = f"Split: {proposal.author} into {len(proposal.groups)} records."
        return self.decide(request, proposal, split, done, proposal=proposal)

    def keep_whole_view(self, request, object_id):
        proposal = get_object_or_404(models.SplitProposal, pk=object_id)
        keep = curation.split_proposal_keep_whole
        done = f"Kept whole: {proposal.author}. The same split is not proposed again."
        return self.decide(request, proposal, keep, done, proposal=proposal)


@admin.register(models.SplitProposal)
class SplitProposalAdmin(SplitProposalViews, CurationAdmin):
    list_display = ["author", "group_sizes", "reason", "score", "decision", "raised"]
    list_filter = ["status"]
    search_fields = ["author__display_name", "reason"]
    list_select_related = ["author", "decided_by"]
    actions = ["split_selected", "keep_whole_selected"]
    change_form_template = "admin/publications/splitproposal/change_form.html"

    def get_ordering(self, request):
        open_first = Case(
            When(status=OPEN, then=Value(0)), default=Value(1), output_field=IntegerField()
        )
        return [open_first.asc(), "-score", "-created_at"]

    @admin.display(description="groups of works")
    def group_sizes(self, proposal):
        return " + ".join(str(len(g.get("work_ids", ()))) for g in proposal.groups)

    @admin.display(description="decision", ordering="status")
    def decision(self, proposal):
        if proposal.status == OPEN:
            return "Open"
        who = f" by {proposal.decided_by}" if proposal.decided_by else ""
        return f"{proposal.get_status_display()}{who}"

    @admin.display(description="raised", ordering="created_at")
    def raised(self, proposal):
        return date_format(timezone.localtime(proposal.created_at), "j M Y")

    @admin.action(
        description="Split the selected records into their groups", permissions=["change"]
    )
    def split_selected(self, request, queryset):
        split = curation.split_proposal_split
        self.bulk(request, queryset, split, "records split", name="proposal")

    @admin.action(description="Keep the selected records whole", permissions=["change"])
    def keep_whole_selected(self, request, queryset):
        keep = curation.split_proposal_keep_whole
        self.bulk(request, queryset, keep, "records kept whole", name="proposal")

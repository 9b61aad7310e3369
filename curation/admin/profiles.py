from django.contrib import admin, messages
from django.db.models import BooleanField, Case, ExpressionWrapper, IntegerField, Q, Value, When
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from rest_framework.authtoken.admin import TokenAdmin

from catalogue.audit import audit_record
from curation.admin.audit import AuditedModelAdmin
from curation.admin.catalogue import CurationAdmin
from profiles import models
from profiles.claims import services as claims
from profiles.claims.forms import ApproveClaimForm, RejectClaimForm
from profiles.claims.review import claim_review


@admin.register(models.Profile)
class ProfileAdmin(AuditedModelAdmin):
    list_display = ["author", "user", "tagline", "open_to_collaborate", "updated_at"]
    list_filter = ["open_to_collaborate"]
    search_fields = ["author__display_name", "user__email", "tagline"]
    list_select_related = ["author", "user"]
    raw_id_fields = ["author", "user"]
    autocomplete_fields = ["pinned_works"]  # a list of every work would not load


INSTITUTIONAL = Q(method=models.Claim.Method.EMAIL) & ~Q(verified_email="")


class InstitutionalEvidenceFilter(admin.SimpleListFilter):
    """Claims with a confirmed institutional address: evidence that may be decided faster."""

    title = "evidence"
    parameter_name = "evidence"

    def lookups(self, request, model_admin):
        return [("institutional", "Confirmed institutional address"), ("other", "Other evidence")]

    def queryset(self, request, queryset):
        if self.value() == "institutional":
            return queryset.filter(INSTITUTIONAL)
        if self.value() == "other":
            return queryset.exclude(INSTITUTIONAL)
        return queryset


@admin.register(models.Claim)
class ClaimAdmin(CurationAdmin):
    """Staff review claims: the evidence, the record and the claimant side by side.

    Claims are decided (approved or rejected), never deleted: the audit trail refers to them.
    """

    list_display = [
        "author",
        "claimant",
        "method",
        "institutional_address",
        "status",
        "created_at",
        "reviewer",
    ]
    actions = None
    list_filter = ["status", InstitutionalEvidenceFilter, "method"]
    search_fields = ["author__display_name", "user__email", "evidence"]
    list_select_related = ["author", "user", "reviewer"]
    change_form_template = "admin/profiles/claim/change_form.html"
    curation_routes = [
        ("<int:object_id>/approve/", "approve_view", True),
        ("<int:object_id>/reject/", "reject_view", True),
    ]

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="claimant", ordering="user__email")
    def claimant(self, claim):
        return claim.user.email or claim.user.get_username()

    @admin.display(
        description="institutional address",
        boolean=True,
        ordering=ExpressionWrapper(INSTITUTIONAL, output_field=BooleanField()),
    )
    def institutional_address(self, claim):
        return claim.method == models.Claim.Method.EMAIL and bool(claim.verified_email)

    def get_ordering(self, request):
        # Claims waiting for staff first; among them, those with a confirmed institutional
        # address, which are often the quickest to decide.
        waiting = Case(
            When(status=models.Claim.Status.DISPUTED, then=Value(0)),
            When(status=models.Claim.Status.PENDING, then=Value(1)),
            default=Value(2),
            output_field=IntegerField(),
        )
        institutional = Case(When(INSTITUTIONAL, then=Value(0)), default=Value(1))
        return [waiting.asc(), institutional.asc(), "-created_at"]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        claim = self.get_object(request, object_id)
        context = {}
        if claim is not None:
            waiting = claim.status in (models.Claim.Status.PENDING, models.Claim.Status.DISPUTED)
            review = claim_review(claim)
            holder = review.holder
            context = {
                "review": review,
                "holder": holder if waiting else None,
                "can_approve": waiting
                and holder is None
                and self.has_change_permission(request, claim),
                "can_reject": claim.status in models.Claim.ACTIVE_STATUSES
                and self.has_change_permission(request, claim),
                "approve_form": ApproveClaimForm(),
                "reject_form": RejectClaimForm(),
                "approve_url": self.curation_url("approve", claim.pk),
                "reject_url": self.curation_url("reject", claim.pk),
                "title": "Review claim",
            }
        return self.read_only_change_view(
            request, object_id, [], {**context, **(extra_context or {})}
        )

    def approve_view(self, request, object_id):
        claim = get_object_or_404(models.Claim, pk=object_id)
        form = ApproveClaimForm(request.POST)
        note = form.cleaned_data["note"] if form.is_valid() else ""
        done = f"Approved: {claim.user} holds {claim.author} (reviewed by staff, L4)."
        return self.decide(request, claim, claims.claim_approve, done, claim=claim, note=note)

    def reject_view(self, request, object_id):
        claim = get_object_or_404(models.Claim, pk=object_id)
        form = RejectClaimForm(request.POST)
        if not form.is_valid():
            self.require_change(request, claim)
            self.message_user(request, "Give the reason: the claimant sees it.", messages.ERROR)
            return HttpResponseRedirect(self.change_url(claim))
        done = f"Rejected: {claim}. The claimant sees your reason."
        reason = form.cleaned_data["reason"]
        return self.decide(request, claim, claims.claim_reject, done, claim=claim, reason=reason)


@admin.register(models.Follow)
class FollowAdmin(AuditedModelAdmin):
    list_display = ["user", "author", "created_at"]
    search_fields = ["user__email", "author__display_name"]
    list_select_related = ["user", "author"]
    raw_id_fields = ["user", "author"]


@admin.register(models.Preferences)
class PreferencesAdmin(AuditedModelAdmin):
    list_display = ["user", "email_digest", "following_seen_at", "digest_sent_at"]
    list_filter = ["email_digest"]
    search_fields = ["user__email"]
    raw_id_fields = ["user"]


class NotificationKindFilter(admin.SimpleListFilter):
    """The kinds staff may list: never those of a conversation."""

    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        private = models.Notification.CONVERSATION_KINDS
        return [
            (kind, label) for kind, label in models.Notification.Kind.choices if kind not in private
        ]

    def queryset(self, request, queryset):
        return queryset.filter(kind=self.value()) if self.value() else queryset


# Invitations and messages are members' private conversations: the admin offers neither,
# to superusers neither, nor the notifications that tell of them (an invitation's topic,
# who accepted whose invitation). Staff read a conversation only as the copy a report
# keeps of it, and each reading is in the audit trail (ReportAdmin.change_view).


@admin.register(models.Notification)
class NotificationAdmin(AuditedModelAdmin):
    list_display = ["user", "kind", "text", "created_at", "read_at"]
    list_filter = [NotificationKindFilter]
    search_fields = ["user__email", "text"]
    list_select_related = ["user"]
    raw_id_fields = ["user", "author", "work"]

    def get_queryset(self, request):
        return super().get_queryset(request).outside_conversations()

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "kind":  # staff cannot write one either
            private = models.Notification.CONVERSATION_KINDS
            kwargs["choices"] = [c for c in db_field.choices if c[0] not in private]
        return super().formfield_for_choice_field(db_field, request, **kwargs)


@admin.register(models.Block)
class BlockAdmin(AuditedModelAdmin):
    list_display = ["blocker", "blocked", "created_at"]
    search_fields = ["blocker__email", "blocked__email"]
    raw_id_fields = ["blocker", "blocked"]


@admin.register(models.Report)
class ReportAdmin(AuditedModelAdmin):
    """Reports are members' writing: staff read and decide them, and change nothing else."""

    list_display = [
        "kind",
        "reporter",
        "reported_user",
        "author",
        "work",
        "status",
        "created_at",
        "handled_by",
    ]
    list_filter = ["kind", "status"]
    # Never the evidence: a conversation is read one report at a time, and audited.
    search_fields = ["reason", "reporter__email", "author__display_name"]
    list_select_related = ["reporter", "reported_user", "author", "work", "handled_by"]
    fields = [
        "kind",
        "status",
        "reporter",
        "reported_user",
        "author",
        "work",
        "reason",
        "evidence",
        "created_at",
        "handled_by",
        "handled_at",
    ]
    readonly_fields = fields
    actions = ["uphold", "dismiss"]

    def has_add_permission(self, request):
        return False  # members make reports; staff decide them

    def has_delete_permission(self, request, obj=None):
        return False  # the audit trail refers to them

    def change_view(self, request, object_id, form_url="", extra_context=None):
        report = self.get_object(request, object_id)
        response = super().change_view(request, object_id, form_url, extra_context)
        shown = request.method == "GET" and getattr(response, "status_code", 0) == 200
        if report is not None and report.evidence and shown:
            _audit_evidence_read(request.user, report)
        return response

    def _decide(self, request, queryset, decide, done: str) -> None:
        from profiles.collaboration.services import CollaborationError

        count = 0
        for report in queryset:
            try:
                decide(report=report, actor=request.user)
            except CollaborationError as exc:
                self.message_user(request, str(exc), level="warning")
            else:
                count += 1
        if count:
            self.message_user(request, f"{count} report{'s' if count != 1 else ''} {done}.")

    @admin.action(
        description="Uphold: act on the report (a misattributed work leaves the record)",
        permissions=["change"],
    )
    def uphold(self, request, queryset):
        from profiles.collaboration.services import report_uphold

        self._decide(request, queryset, report_uphold, "upheld")

    @admin.action(description="Dismiss: nothing to act on", permissions=["change"])
    def dismiss(self, request, queryset):
        from profiles.collaboration.services import report_dismiss

        self._decide(request, queryset, report_dismiss, "dismissed")


def _audit_evidence_read(actor, report: models.Report) -> None:
    """Staff opened the copy of a conversation a report keeps: say who, when and which."""
    audit_record(
        actor=actor,
        action="report_evidence_view",
        target=report,
        data={"invitation_id": report.invitation_id, "reporter_id": report.reporter_id},
    )


# A member's API token: its page picks the user by id, not from a list of every account.
TokenAdmin.raw_id_fields = ["user"]

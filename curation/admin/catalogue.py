"""The admin: what each model's lists show, filter and act on.

The staff curation views (merge, split, new import, retry, cancel, undo) and
their routes live in ``curation.admin.views``; the ModelAdmins below take
them in through its mixins.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Value, When
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

import curation
from catalogue import models
from curation import selectors
from curation.admin.audit import AuditedModelAdmin
from curation.admin.display import duration_text, pretty_json, progress_bar, shorten
from curation.admin.figures import RenewsAuthorFigures
from curation.admin.limits import CappedTabularInline
from curation.admin.views import (
    AuditEventViews,
    AuthorCurationViews,
    CurationAdmin,
    ImportProblemViews,
    ImportRunViews,
    MergeCandidateViews,
)
from curation.selectors import progress_state, progress_text


@admin.register(models.Institution)
class InstitutionAdmin(AuditedModelAdmin):
    list_display = ["name", "country_code", "type", "homepage_domain", "ror", "openalex_id"]
    list_filter = ["type", "country_code"]
    search_fields = ["name", "ror", "openalex_id", "homepage_domain"]


@admin.register(models.Venue)
class VenueAdmin(AuditedModelAdmin):
    list_display = ["name", "type", "publisher", "issn_l", "openalex_id"]
    list_filter = ["type"]
    search_fields = ["name", "issn_l", "openalex_id", "publisher"]


@admin.register(models.Topic)
class TopicAdmin(AuditedModelAdmin):
    list_display = ["name", "kind", "key", "parent"]
    list_filter = ["kind"]
    search_fields = ["name", "key"]
    list_select_related = ["parent"]
    raw_id_fields = ["parent"]


@admin.register(models.Funder)
class FunderAdmin(AuditedModelAdmin):
    list_display = ["name", "openalex_id", "ror"]
    search_fields = ["name", "openalex_id", "ror"]


# The front page lists what waits for staff and what runs (curation.home).
admin.site.index_template = "admin/curation_index.html"


# Works and authors ----------------------------------------------------------


class AuthorshipInline(CappedTabularInline):
    model = models.Authorship
    extra = 0
    raw_id_fields = ["author", "work"]
    fields = ["position", "author", "work", "raw_name", "raw_affiliation", "source", "confidence"]
    ordering = ["position"]


@admin.register(models.Author)
class AuthorAdmin(AuthorCurationViews, AuditedModelAdmin):
    list_display = [
        "display_name",
        "orcid",
        "openalex_id",
        "last_known_institution",
        "works_count",
        "is_deleted",
        "merged_into",
        "created_at",
    ]
    list_filter = ["is_deleted", ("merged_into", admin.EmptyFieldListFilter), "created_at"]
    search_fields = ["display_name", "normalized_name", "orcid", "openalex_id"]
    list_select_related = ["last_known_institution", "merged_into"]
    raw_id_fields = ["last_known_institution", "merged_into"]
    readonly_fields = ["created_at", "updated_at"]
    change_form_template = "admin/publications/author/change_form.html"
    actions = ["merge_two_selected"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(works_total=Count("authorships"))

    @admin.display(description="works", ordering="works_total")
    def works_count(self, obj):
        return obj.works_total


@admin.register(models.AuthorMetrics)
class AuthorMetricsAdmin(AuditedModelAdmin):
    list_display = [
        "author",
        "works_count",
        "citations",
        "h_index",
        "i10_index",
        "followers_count",
        "primary_category",
        "computed_at",
    ]
    search_fields = ["author__display_name"]
    list_select_related = ["author"]
    raw_id_fields = ["author"]


@admin.register(models.Work)
class WorkAdmin(RenewsAuthorFigures, AuditedModelAdmin):
    list_display = [
        "title",
        "type",
        "publication_year",
        "venue",
        "doi",
        "arxiv_id",
        "openalex_id",
        "cited_by_count",
        "created_at",
    ]
    list_filter = [
        "type",
        "is_retracted",
        "is_open_access",
        "publication_year",
        "arxiv_primary_category",
    ]
    search_fields = ["title", "doi", "arxiv_id", "openalex_id"]
    list_select_related = ["venue"]
    raw_id_fields = ["venue", "merged_into"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [AuthorshipInline]


@admin.register(models.Authorship)
class AuthorshipAdmin(AuditedModelAdmin):
    list_display = ["work", "author", "position", "raw_name", "source", "confidence"]
    list_filter = ["source"]
    search_fields = ["raw_name", "author__display_name", "work__title"]
    list_select_related = ["work", "author"]
    raw_id_fields = ["work", "author"]
    autocomplete_fields = ["institutions"]


@admin.register(models.WorkTopic)
class WorkTopicAdmin(AuditedModelAdmin):
    list_display = ["work", "topic", "score", "is_primary", "source"]
    list_filter = ["source", "is_primary", "topic__kind"]
    search_fields = ["work__title", "topic__name"]
    list_select_related = ["work", "topic"]
    raw_id_fields = ["work", "topic"]


@admin.register(models.Grant)
class GrantAdmin(AuditedModelAdmin):
    list_display = ["funder", "award_id", "work"]
    search_fields = ["award_id", "funder__name", "work__title"]
    list_select_related = ["funder", "work"]
    raw_id_fields = ["work", "funder"]


@admin.register(models.WorkSimilarity)
class WorkSimilarityAdmin(AuditedModelAdmin):
    list_display = ["work", "similar", "score", "computed_at"]
    search_fields = ["work__title", "similar__title"]
    list_select_related = ["work", "similar"]
    raw_id_fields = ["work", "similar"]


@admin.register(models.SourceRecord)
class SourceRecordAdmin(AuditedModelAdmin):
    list_display = ["external_id", "source", "entity", "work", "author", "fetched_at"]
    list_filter = ["source", "entity"]
    search_fields = ["external_id"]
    list_select_related = ["work", "author"]
    raw_id_fields = ["work", "author", "import_run"]
    readonly_fields = ["content_hash", "first_seen_at"]


# Import runs ------------------------------------------------------------------


@admin.register(models.ImportRun)
class ImportRunAdmin(ImportRunViews, CurationAdmin):
    list_display = [
        "run",
        "what",
        "progress",
        "counters_summary",
        "short_error",
        "requested",
    ]
    list_display_links = ["run"]
    list_filter = ["status", "source", "kind"]
    search_fields = ["error"]
    list_select_related = ["requested_by"]
    actions = ["retry_runs", "cancel_runs"]
    readonly_fields = ["progress_now", "problems_link"]
    fields = [
        "progress_now",
        "source",
        "kind",
        "parameters",
        "status",
        "processed",
        "total",
        "counters",
        "error",
        "problems_link",
        "requested_by",
        "created_at",
        "started_at",
        "finished_at",
        "heartbeat_at",
        "cursor",
        "task_id",
    ]
    change_list_template = "admin/publications/importrun/change_list.html"
    change_form_template = "admin/publications/importrun/change_form.html"

    @admin.display(description="run", ordering="-pk")
    def run(self, run):
        return format_html(
            '#{}<div><span class="curation-status curation-status--{}">{}</span></div>',
            run.pk,
            run.status,
            run.get_status_display(),
        )

    @admin.display(description="import", ordering="source")
    def what(self, run):
        return format_html(
            '{} · {}<div class="curation-meta">{}</div>',
            run.get_source_display(),
            run.get_kind_display(),
            shorten(selectors.parameters_summary(run.parameters), 50),
        )

    @admin.display(description="progress")
    def progress(self, run):
        done = progress_text(run)
        return format_html('{}<div class="curation-meta">{}</div>', done, self.duration(run))

    @admin.display(description="progress")
    def progress_now(self, run):
        """Progress that the run page keeps up to date while the run goes on."""
        state = progress_state(run)
        return format_html(
            '<div class="curation-progress" data-progress-url="{}" data-finished="{}">'
            '<span class="curation-status curation-status--{}" data-progress="status">{}</span> '
            '{} <span data-progress="text" role="status">{}</span></div>',
            self.curation_url("progress", run.pk),
            "true" if state["finished"] else "false",
            run.status,
            state["status_label"],
            progress_bar(state["percent"]),
            state["text"],
        )

    @admin.display(description="counters")
    def counters_summary(self, run):
        counters = run.counters or {}
        names = {"created": "created", "updated": "updated", "unchanged": "unchanged"}
        names["problems"] = "problem" if counters.get("problems") == 1 else "problems"
        lines = [(counters[key], name) for key, name in names.items() if key in counters]
        return format_html_join(mark_safe("<br>"), "{} {}", lines) or "—"

    @admin.display(description="requested", ordering="created_at")
    def requested(self, run):
        when = date_format(timezone.localtime(run.created_at), "j M Y")
        who = f"by {run.requested_by}" if run.requested_by else "by a command"
        return format_html('{}<div class="curation-meta">{}</div>', when, who)

    @staticmethod
    def duration(run) -> str:
        if not run.started_at:
            return "not started"
        if run.finished_at:
            return f"took {duration_text((run.finished_at - run.started_at).total_seconds())}"
        if run.status == models.ImportRun.Status.RUNNING:
            return f"running for {duration_text((timezone.now() - run.started_at).total_seconds())}"
        return "stopped"

    @admin.display(description="error")
    def short_error(self, run):
        return shorten(run.error, 45)

    @admin.display(description="problems")
    def problems_link(self, run):
        count = run.problems.count()
        url = reverse("admin:publications_importproblem_changelist")
        return format_html('<a href="{}?run__id__exact={}">{} problem(s)</a>', url, run.pk, count)

    @admin.action(description="Retry the selected runs", permissions=["change"])
    def retry_runs(self, request, queryset):
        self.bulk(request, queryset, curation.import_run_retry, "run(s) queued again", name="run")

    @admin.action(description="Cancel the selected runs", permissions=["change"])
    def cancel_runs(self, request, queryset):
        self.bulk(request, queryset, curation.import_run_cancel, "run(s) cancelled", name="run")


# Import problems ---------------------------------------------------------------


@admin.register(models.ImportProblem)
class ImportProblemAdmin(ImportProblemViews, CurationAdmin):
    list_display = [
        "id",
        "external_id",
        "source",
        "status",
        "short_error",
        "run",
        "seen_count",
        "last_run",
        "created_at",
        "resolved_by",
    ]
    list_display_links = ["id", "external_id"]
    list_filter = ["status", "source"]
    search_fields = ["external_id", "error"]
    list_select_related = ["run", "last_run", "resolved_by"]
    actions = ["retry_problems", "ignore_problems"]
    readonly_fields = ["error_text", "payload_pretty", "seen_count", "last_run", "last_seen_at"]
    fields = [
        "run",
        "seen_count",
        "last_run",
        "last_seen_at",
        "source",
        "external_id",
        "status",
        "error_text",
        "payload_pretty",
        "raw_payload",
        "created_at",
        "resolved_by",
        "resolved_at",
    ]
    change_form_template = "admin/publications/curation_change_form.html"

    @admin.display(description="error")
    def short_error(self, problem):
        return shorten(problem.error, 100)

    @admin.display(description="error")
    def error_text(self, problem):
        return format_html('<pre class="curation-json">{}</pre>', problem.error)

    @admin.display(description="payload")
    def payload_pretty(self, problem):
        return pretty_json(problem.payload)

    @admin.action(description="Retry the selected problems", permissions=["change"])
    def retry_problems(self, request, queryset):
        landed, still = 0, 0
        for problem in queryset:
            try:
                error = curation.import_problem_retry(problem=problem, actor=request.user)
            except ValueError as exc:
                self.message_user(request, f"#{problem.pk}: {exc}", messages.WARNING)
                continue
            landed, still = (landed + 1, still) if error is None else (landed, still + 1)
        if landed:
            self.message_user(request, f"{landed} record(s) imported.", messages.SUCCESS)
        if still:
            self.message_user(
                request, f"{still} record(s) failed again; see their errors.", messages.WARNING
            )

    @admin.action(description="Ignore the selected problems", permissions=["change"])
    def ignore_problems(self, request, queryset):
        ignore = curation.import_problem_ignore
        self.bulk(request, queryset, ignore, "problem(s) ignored", name="problem")


# Merge candidates -------------------------------------------------------------


@admin.register(models.MergeCandidate)
class MergeCandidateAdmin(MergeCandidateViews, CurationAdmin):
    list_display = ["pair", "kind", "reason", "score", "decision", "raised"]
    list_filter = ["status", "kind"]
    search_fields = [
        "reason",
        "work_a__title",
        "work_b__title",
        "author_a__display_name",
        "author_b__display_name",
    ]
    list_select_related = ["work_a", "work_b", "author_a", "author_b", "decided_by"]
    change_form_template = "admin/publications/mergecandidate/change_form.html"

    def get_ordering(self, request):
        open_first = Case(
            When(status=models.MergeCandidate.Status.OPEN, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
        return [open_first.asc(), "-created_at"]

    @admin.display(description="pair")
    def pair(self, candidate):
        return str(candidate)

    @admin.display(description="decision", ordering="status")
    def decision(self, candidate):
        if candidate.status == models.MergeCandidate.Status.OPEN:
            return "Open"
        who = f" by {candidate.decided_by}" if candidate.decided_by else ""
        return f"{candidate.get_status_display()}{who}"

    @admin.display(description="raised", ordering="created_at")
    def raised(self, candidate):
        return date_format(timezone.localtime(candidate.created_at), "j M Y")


@admin.register(models.LinkConstraint)
class LinkConstraintAdmin(AuditedModelAdmin):
    list_display = ["__str__", "kind", "source", "created_by", "created_at"]
    list_filter = ["kind", "source"]
    search_fields = ["author__display_name", "work__title", "reason"]
    list_select_related = ["author", "work", "other_author", "other_work", "created_by"]
    raw_id_fields = ["author", "work", "other_author", "other_work", "created_by"]


# The audit trail -----------------------------------------------------------------


@admin.register(models.AuditEvent)
class AuditEventAdmin(AuditEventViews, CurationAdmin):
    list_display = ["created_at", "actor", "action", "target_link", "undo_state"]
    list_filter = ["action", "target_type"]
    search_fields = ["target_repr", "target_id", "actor__email", "actor__username"]
    list_select_related = ["actor"]
    date_hierarchy = "created_at"
    readonly_fields = ["target_link", "data_pretty"]
    fields = ["created_at", "actor", "action", "target_link", "data_pretty"]
    change_form_template = "admin/publications/curation_change_form.html"

    def has_change_permission(self, request, obj=None):
        return False  # the audit trail is append-only

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        undos = models.AuditEvent.objects.filter(
            action=curation.UNDO,
            target_type=models.AuditEvent._meta.label_lower,
            target_id=Cast(
                OuterRef("pk"), output_field=models.AuditEvent._meta.get_field("target_id")
            ),
        )
        return super().get_queryset(request).annotate(undone=Exists(undos))

    @admin.display(description="target")
    def target_link(self, event):
        url = selectors.admin_url(event.target_type, event.target_id)
        label = event.target_repr or f"{event.target_type} #{event.target_id}"
        return format_html('<a href="{}">{}</a>', url, label) if url else label

    @admin.display(description="undo")
    def undo_state(self, event):
        if event.undone:
            return "undone"
        if curation.audit_is_undoable(event):
            url = reverse("admin:publications_auditevent_change", args=[event.pk])
            return format_html('<a href="{}">Undo…</a>', url)
        return ""

    @admin.display(description="data")
    def data_pretty(self, event):
        return pretty_json(event.data)

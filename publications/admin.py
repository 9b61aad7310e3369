"""The admin, with the staff curation tools: imports, problems, merge candidates, authors, audit.

Curation views are thin: each goes through ``admin_site.admin_view`` (staff
only), checks ``has_change_permission``, calls a service in
``publications.curation`` and redirects with a message. Reads for the pages
live in ``publications.curation_pages``.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Value, When
from django.db.models.functions import Cast
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from publications import curation, curation_pages, models, uploads
from publications.admin_audit import AuditedModelAdmin
from publications.forms import KIND_ROWS, AuthorSplitForm, ImportRunForm
from publications.permissions import ADD, admin_allows


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


# The front page lists what waits for staff and what runs (publications.curation_home).
admin.site.index_template = "admin/curation_index.html"


# Shared pieces of the curation views ------------------------------------------


def _pretty_json(value) -> str:
    if value in (None, "", {}, []):
        return "—"
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return format_html('<pre class="curation-json">{}</pre>', text)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def _short(text: str, size: int = 90) -> str:
    if not text:
        return ""
    if len(text) <= size:
        return text
    return format_html('<span title="{}">{}…</span>', text, text[: size - 1])


class CurationAdmin(AuditedModelAdmin):
    """An admin whose staff actions are custom URLs guarded by the change permission."""

    curation_routes: list[tuple[str, str, bool]] = []  # (route, view method, POST only)

    def get_urls(self):
        info = self.opts.app_label, self.opts.model_name
        custom = []
        for route, method, post_only in self.curation_routes:
            view = getattr(self, method)
            view = require_POST(view) if post_only else view
            name = "{}_{}_{}".format(*info, method.removesuffix("_view"))
            custom.append(path(route, self.admin_site.admin_view(view), name=name))
        return custom + super().get_urls()

    def curation_url(self, name: str, *args) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_{name}", args=args)

    def change_url(self, obj) -> str:
        return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])

    def require_change(self, request, obj=None) -> None:
        if not self.has_change_permission(request, obj):
            raise PermissionDenied

    def decide(self, request, obj, service, success: str, **kwargs) -> HttpResponseRedirect:
        """Run one staff decision on ``obj`` and come back to its page with a message."""
        self.require_change(request, obj)
        try:
            service(actor=request.user, **kwargs)
        except (ValueError, ValidationError) as exc:
            self.message_user(request, _message(exc), messages.ERROR)
        else:
            self.message_user(request, success, messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(obj))

    def read_only_change_view(self, request, object_id, buttons, extra_context=None):
        context = {
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
            "show_delete": False,
            "curation_buttons": buttons,
            **(extra_context or {}),
        }
        return super().change_view(request, object_id, extra_context=context)

    def get_readonly_fields(self, request, obj=None):
        fields = [f.name for f in self.opts.fields if f.name != "id"]
        return [*fields, *self.readonly_fields]

    def has_add_permission(self, request):
        return False  # rows of curation models are made by imports and services

    def bulk(self, request, queryset, service, done: str, *, name: str) -> None:
        """Run a service on each selected row (passed as ``name``) and report the outcome."""
        ok, failed = 0, []
        for obj in queryset:
            try:
                service(actor=request.user, **{name: obj})
                ok += 1
            except (ValueError, ValidationError) as exc:
                failed.append(f"#{obj.pk}: {_message(exc)}")
        if ok:
            self.message_user(request, f"{ok} {done}.", messages.SUCCESS)
        for reason in failed:
            self.message_user(request, reason, messages.WARNING)


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return str(exc)


def _button(url: str, label: str, style: str = "") -> dict:
    return {"url": url, "label": label, "style": style}


# Works and authors ----------------------------------------------------------


class AuthorshipInline(admin.TabularInline):
    model = models.Authorship
    extra = 0
    raw_id_fields = ["author", "work"]
    fields = ["position", "author", "work", "raw_name", "raw_affiliation", "source", "confidence"]
    ordering = ["position"]


@admin.register(models.Author)
class AuthorAdmin(AuditedModelAdmin):
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

    def get_urls(self):
        def route(suffix, view, name):
            return path(
                f"<int:author_id>/{suffix}/",
                self.admin_site.admin_view(view),
                name=f"publications_author_{name}",
            )

        return [
            route("merge", self.merge_view, "merge"),
            route("split", self.split_view, "split"),
        ] + super().get_urls()

    @admin.action(description="Merge the two selected authors…", permissions=["change"])
    def merge_two_selected(self, request, queryset):
        pair = list(queryset.order_by("pk")[:3])
        if len(pair) != 2:
            self.message_user(request, "Select exactly two authors to merge.", messages.WARNING)
            return None
        older, newer = pair
        url = reverse("admin:publications_author_merge", args=[newer.pk])
        return HttpResponseRedirect(f"{url}?target={older.pk}")

    def _author_or_404(self, request, author_id):
        author = get_object_or_404(models.Author, pk=author_id)
        if not self.has_change_permission(request, author):
            raise PermissionDenied
        return author

    def _page(self, request, template, original, title, **context):
        return TemplateResponse(
            request,
            f"admin/publications/author/{template}",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "original": original,
                "title": title,
                **context,
            },
        )

    def merge_view(self, request, author_id):
        source = self._author_or_404(request, author_id)
        target = curation_pages.author_by_id(
            request.POST.get("target") or request.GET.get("target")
        )
        if request.method == "POST" and target is None:
            self.message_user(request, "Pick the author to keep.", messages.ERROR)
        elif request.method == "POST":
            try:
                event = curation.author_merge(source=source, target=target, actor=request.user)
            except ValueError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                undo = reverse("admin:publications_auditevent_change", args=[event.pk])
                self.message_user(
                    request,
                    format_html(
                        "Merged “{}” (#{}) into “{}” (#{}). "
                        '<a href="{}">Undo from the audit trail</a>.',
                        source,
                        source.pk,
                        target,
                        target.pk,
                        undo,
                    ),
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:publications_author_change", args=[target.pk])
                )
        query = request.GET.get("q", "").strip()
        return self._page(
            request,
            "merge.html",
            source,
            f"Merge “{source}” into another author",
            source=source,
            target=target,
            query=query,
            choices=curation_pages.merge_target_choices(source, query),
            preview=curation.author_merge_preview(source=source, target=target) if target else None,
            source_card=curation_pages.author_card(source),
            target_card=curation_pages.author_card(target) if target else None,
        )

    def split_view(self, request, author_id):
        author = self._author_or_404(request, author_id)
        works = curation_pages.author_works_for_split(author)
        data = (
            request.POST
            if request.method == "POST"
            else (request.GET if "work" in request.GET else None)
        )
        form = AuthorSplitForm(data, works=works)
        if request.method == "POST" and form.is_valid():
            try:
                new = curation.author_split(
                    author=author,
                    work_ids=form.cleaned_data["work"],
                    actor=request.user,
                    new_name=form.cleaned_data["new_name"],
                )
            except ValueError as exc:
                self.message_user(request, str(exc), messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"Split {len(form.cleaned_data['work'])} work(s) off “{author}” into "
                    f"the new record #{new.pk}. Imports will keep them apart.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:publications_author_change", args=[new.pk])
                )
        preview = None
        if data is not None and form.is_valid():
            preview = curation.author_split_preview(
                author=author, work_ids=form.cleaned_data["work"]
            )
        chosen = (
            set(form.cleaned_data.get("work", [])) if form.is_bound and form.is_valid() else set()
        )
        return self._page(
            request,
            "split.html",
            author,
            f"Split works off “{author}”",
            author=author,
            form=form,
            works=works,
            chosen=chosen,
            preview=preview,
        )


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
class WorkAdmin(AuditedModelAdmin):
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
    filter_horizontal = ["institutions"]


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

RUN_ACTIVE = {
    models.ImportRun.Status.WAITING,
    models.ImportRun.Status.QUEUED,
    models.ImportRun.Status.RUNNING,
}


BAR = mark_safe('data-progress="bar" aria-label="Import progress"')


def progress_text(run) -> str:
    """``12 / 40 (30%)``, or the count alone while the total is unknown.

    A source's total is an estimate until the run has read it all, so what is done
    never shows above it: past it, the count stands alone.
    """
    if run.total and run.total >= run.processed:
        percent = min(100, round(100 * run.processed / run.total))
        return f"{run.processed:,} / {run.total:,} ({percent}%)"
    if run.status == models.ImportRun.Status.SUCCEEDED:
        return f"{run.processed:,} / {run.processed:,} (100%)"
    return f"{run.processed:,} read"


def progress_state(run) -> dict:
    percent = None
    if run.status == models.ImportRun.Status.SUCCEEDED:
        percent = 100
    elif run.total and run.total >= run.processed:
        percent = min(100, round(100 * run.processed / run.total))
    return {
        "status": run.status,
        "status_label": run.get_status_display(),
        "processed": run.processed,
        "total": run.total,
        "percent": percent,
        "text": progress_text(run),
        "counters": {k: v for k, v in (run.counters or {}).items() if isinstance(v, int)},
        "finished": run.status not in RUN_ACTIVE,
    }


@admin.register(models.ImportRun)
class ImportRunAdmin(CurationAdmin):
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
    curation_routes = [
        ("new/", "new_import_view", False),
        ("<int:object_id>/progress/", "progress_view", False),
        ("<int:object_id>/retry/", "retry_view", True),
        ("<int:object_id>/cancel/", "cancel_view", True),
    ]

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
            _short(curation_pages.parameters_summary(run.parameters), 50),
        )

    @admin.display(description="progress")
    def progress(self, run):
        done = progress_text(run)
        return format_html('{}<div class="curation-meta">{}</div>', done, self.duration(run))

    @admin.display(description="progress")
    def progress_now(self, run):
        """Progress that the run page keeps up to date while the run goes on."""
        state = progress_state(run)
        percent = state["percent"]
        bar = (
            format_html('<progress max="100" value="{}" {}>{}%</progress>', percent, BAR, percent)
            if percent is not None
            else format_html('<progress max="100" {}></progress>', BAR)  # unknown total
        )
        return format_html(
            '<div class="curation-progress" data-progress-url="{}" data-finished="{}">'
            '<span class="curation-status curation-status--{}" data-progress="status">{}</span> '
            '{} <span data-progress="text" role="status">{}</span></div>',
            self.curation_url("progress", run.pk),
            "true" if state["finished"] else "false",
            run.status,
            state["status_label"],
            bar,
            state["text"],
        )

    def progress_view(self, request, object_id):
        run = get_object_or_404(models.ImportRun, pk=object_id)
        if not self.has_view_permission(request, run):
            raise PermissionDenied
        return JsonResponse(progress_state(run))

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
            return f"took {_duration((run.finished_at - run.started_at).total_seconds())}"
        if run.status == models.ImportRun.Status.RUNNING:
            return f"running for {_duration((timezone.now() - run.started_at).total_seconds())}"
        return "stopped"

    @admin.display(description="error")
    def short_error(self, run):
        return _short(run.error, 45)

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

    def changelist_view(self, request, extra_context=None):
        can_import = self.may_queue(request)
        context = {"new_import_url": self.curation_url("new_import") if can_import else None}
        return super().changelist_view(request, extra_context={**context, **(extra_context or {})})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        buttons = []
        if run is not None and self.has_change_permission(request, run):
            if run.status in {models.ImportRun.Status.FAILED, models.ImportRun.Status.CANCELLED}:
                buttons.append(_button(self.curation_url("retry", run.pk), "Retry", "default"))
            if run.status in {
                models.ImportRun.Status.WAITING,
                models.ImportRun.Status.QUEUED,
                models.ImportRun.Status.RUNNING,
            }:
                buttons.append(_button(self.curation_url("cancel", run.pk), "Cancel", "danger"))
        return self.read_only_change_view(request, object_id, buttons, extra_context)

    def may_queue(self, request) -> bool:
        # Rows of this model are made by the import service, so the admin's own add
        # form stays off; queuing asks for the add permission, as the API does.
        return admin_allows(request.user, ADD, models.ImportRun)

    def new_import_view(self, request):
        if not self.may_queue(request):
            raise PermissionDenied
        form = ImportRunForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                run = curation.import_run_create(
                    **self._import_asked_for(form), actor=request.user, background=True
                )
            except ValidationError as exc:
                for field, errors in exc.message_dict.items():
                    form.add_error("value" if field == "parameters" else field, errors)
            else:
                # No status in the message: it would be stale by the time it is read (a run
                # can fail the moment it starts). The page shows the run's own, kept current.
                self.message_user(
                    request,
                    f"Import #{run.pk} is asked for. Its status and progress are shown below.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(self.change_url(run))
        return TemplateResponse(
            request,
            "admin/publications/importrun/new_import.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "New import",
                "form": form,
                "kind_rows": KIND_ROWS,
                "upload_limit": uploads.size_text(settings.IMPORT_UPLOAD_MAX_BYTES),
            },
        )

    @staticmethod
    def _import_asked_for(form: ImportRunForm) -> dict:
        """Source, kind and parameters of the run the form asks for (an upload is stored)."""
        data = form.cleaned_data
        if not data.get("upload"):
            return {
                "source": data["source"],
                "kind": data["kind"],
                "parameters": data["parameters"],
            }
        sniffed = data["sniffed"]
        path = uploads.upload_store(upload=data["upload"], sniffed=sniffed)
        parameters = {
            "paths": [str(path)],
            "uploaded": uploads.display_name(data["upload"].name),
            "format": sniffed.label,
        }
        return {
            "source": sniffed.source,
            "kind": models.ImportRun.Kind.FILE,
            "parameters": parameters,
        }

    def retry_view(self, request, object_id):
        run = get_object_or_404(models.ImportRun, pk=object_id)
        success = f"Import #{run.pk} goes on from where it stopped."
        retry = curation.import_run_retry
        return self.decide(request, run, retry, success, run=run, background=True)

    def cancel_view(self, request, object_id):
        run = get_object_or_404(models.ImportRun, pk=object_id)
        success = f"Import #{run.pk} is cancelled."
        return self.decide(request, run, curation.import_run_cancel, success, run=run)


# Import problems ---------------------------------------------------------------


@admin.register(models.ImportProblem)
class ImportProblemAdmin(CurationAdmin):
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
    curation_routes = [
        ("<int:object_id>/retry/", "retry_view", True),
        ("<int:object_id>/ignore/", "ignore_view", True),
    ]

    @admin.display(description="error")
    def short_error(self, problem):
        return _short(problem.error, 100)

    @admin.display(description="error")
    def error_text(self, problem):
        return format_html('<pre class="curation-json">{}</pre>', problem.error)

    @admin.display(description="payload")
    def payload_pretty(self, problem):
        return _pretty_json(problem.payload)

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

    def change_view(self, request, object_id, form_url="", extra_context=None):
        problem = self.get_object(request, object_id)
        buttons = []
        is_open = problem is not None and problem.status == models.ImportProblem.Status.OPEN
        if is_open and self.has_change_permission(request, problem):
            if problem.payload is not None:
                buttons.append(_button(self.curation_url("retry", problem.pk), "Retry", "default"))
            buttons.append(_button(self.curation_url("ignore", problem.pk), "Ignore"))
        return self.read_only_change_view(request, object_id, buttons, extra_context)

    def retry_view(self, request, object_id):
        problem = get_object_or_404(models.ImportProblem, pk=object_id)
        self.require_change(request, problem)
        try:
            error = curation.import_problem_retry(problem=problem, actor=request.user)
        except ValueError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            if error is None:
                self.message_user(request, "The record was imported.", messages.SUCCESS)
            else:
                self.message_user(request, f"The record failed again: {error}", messages.ERROR)
        return HttpResponseRedirect(self.change_url(problem))

    def ignore_view(self, request, object_id):
        problem = get_object_or_404(models.ImportProblem, pk=object_id)
        ignore = curation.import_problem_ignore
        return self.decide(request, problem, ignore, "The problem is ignored.", problem=problem)


# Merge candidates -------------------------------------------------------------


@admin.register(models.MergeCandidate)
class MergeCandidateAdmin(CurationAdmin):
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
    curation_routes = [
        ("<int:object_id>/merge/", "merge_view", True),
        ("<int:object_id>/keep-apart/", "keep_apart_view", True),
    ]

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

    def change_view(self, request, object_id, form_url="", extra_context=None):
        candidate = self.get_object(request, object_id)
        context = {}
        if candidate is not None:
            context = {
                "comparison": curation_pages.candidate_comparison(candidate),
                "can_decide": candidate.status == models.MergeCandidate.Status.OPEN
                and self.has_change_permission(request, candidate),
                "merge_url": self.curation_url("merge", candidate.pk),
                "keep_apart_url": self.curation_url("keep_apart", candidate.pk),
                "decision_event": curation_pages.candidate_decision_event(candidate),
                "title": "Review merge candidate",
            }
        return self.read_only_change_view(
            request, object_id, [], {**context, **(extra_context or {})}
        )

    def merge_view(self, request, object_id):
        candidate = get_object_or_404(models.MergeCandidate, pk=object_id)
        merge = curation.merge_candidate_merge
        return self.decide(request, candidate, merge, f"Merged: {candidate}.", candidate=candidate)

    def keep_apart_view(self, request, object_id):
        candidate = get_object_or_404(models.MergeCandidate, pk=object_id)
        success = f"Kept apart: {candidate}. Later imports will not pair them again."
        keep = curation.merge_candidate_keep_apart
        return self.decide(request, candidate, keep, success, candidate=candidate)


@admin.register(models.LinkConstraint)
class LinkConstraintAdmin(AuditedModelAdmin):
    list_display = ["__str__", "kind", "source", "created_by", "created_at"]
    list_filter = ["kind", "source"]
    search_fields = ["author__display_name", "work__title", "reason"]
    list_select_related = ["author", "work", "other_author", "other_work", "created_by"]
    raw_id_fields = ["author", "work", "other_author", "other_work", "created_by"]


# The audit trail -----------------------------------------------------------------


@admin.register(models.AuditEvent)
class AuditEventAdmin(CurationAdmin):
    list_display = ["created_at", "actor", "action", "target_link", "undo_state"]
    list_filter = ["action", "target_type"]
    search_fields = ["target_repr", "target_id", "actor__email", "actor__username"]
    list_select_related = ["actor"]
    date_hierarchy = "created_at"
    readonly_fields = ["target_link", "data_pretty"]
    fields = ["created_at", "actor", "action", "target_link", "data_pretty"]
    change_form_template = "admin/publications/curation_change_form.html"
    curation_routes = [("<int:object_id>/undo/", "undo_view", True)]

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
        url = curation_pages.admin_url(event.target_type, event.target_id)
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
        return _pretty_json(event.data)

    def can_undo(self, request, event) -> bool:
        """Undoing needs the change permission on the model the decision was about."""
        model = curation_pages.target_model(event.target_type)
        model_admin = self.admin_site._registry.get(model)
        return bool(model_admin and model_admin.has_change_permission(request))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        event = self.get_object(request, object_id)
        buttons, note = [], None
        if event is not None and curation.audit_is_undoable(event):
            undo = curation.audit_undo_event(event)
            if undo is not None:
                note = format_html(
                    'Undone by <a href="{}">event #{}</a>.',
                    reverse("admin:publications_auditevent_change", args=[undo.pk]),
                    undo.pk,
                )
            elif self.can_undo(request, event):
                buttons.append(_button(self.curation_url("undo", event.pk), "Undo", "danger"))
        context = {"curation_note": note, **(extra_context or {})}
        return self.read_only_change_view(request, object_id, buttons, context)

    def undo_view(self, request, object_id):
        event = get_object_or_404(models.AuditEvent, pk=object_id)
        if not self.can_undo(request, event):
            raise PermissionDenied
        try:
            curation.audit_undo(event=event, actor=request.user)
        except ValueError as exc:
            self.message_user(request, str(exc), messages.ERROR)
        else:
            self.message_user(
                request, f"Undone: {event.action} of {event.target_repr}.", messages.SUCCESS
            )
        return HttpResponseRedirect(
            reverse("admin:publications_auditevent_change", args=[event.pk])
        )

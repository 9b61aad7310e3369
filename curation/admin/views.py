"""The staff curation views of the admin: merge, split, import, retry, cancel, undo.

Each view goes through ``admin_site.admin_view`` (staff only), checks
``has_change_permission``, calls a service in ``curation`` and
redirects with a message. Reads for the pages live in
``curation.selectors``. The ModelAdmins in ``curation.admin.catalogue`` take
these views in through the mixins below; their routes are declared here too.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

import curation
from catalogue import models
from catalogue.permissions import ADD, admin_allows
from curation import selectors
from curation.admin.audit import AuditedModelAdmin
from curation.forms import KIND_ROWS, AuthorSplitForm, ImportRunForm
from curation.selectors import progress_state
from ingestion import uploads
from ingestion.importing.requesting import Via, import_run_request


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


class AuthorCurationViews:
    """Merge an author into another, or split works off it into a new record."""

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
        target = selectors.author_by_id(request.POST.get("target") or request.GET.get("target"))
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
            choices=selectors.merge_target_choices(source, query),
            preview=curation.author_merge_preview(source=source, target=target) if target else None,
            source_card=selectors.author_card(source),
            target_card=selectors.author_card(target) if target else None,
        )

    def split_view(self, request, author_id):
        author = self._author_or_404(request, author_id)
        works = selectors.author_works_for_split(author)
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


# Import runs ------------------------------------------------------------------


class ImportRunViews:
    """Ask for an import, follow its progress, retry or cancel it."""

    curation_routes = [
        ("new/", "new_import_view", False),
        ("<int:object_id>/progress/", "progress_view", False),
        ("<int:object_id>/retry/", "retry_view", True),
        ("<int:object_id>/cancel/", "cancel_view", True),
    ]

    def progress_view(self, request, object_id):
        run = get_object_or_404(models.ImportRun, pk=object_id)
        if not self.has_view_permission(request, run):
            raise PermissionDenied
        return JsonResponse(progress_state(run))

    def changelist_view(self, request, extra_context=None):
        can_import = self.may_queue(request)
        context = {"new_import_url": self.curation_url("new_import") if can_import else None}
        return super().changelist_view(request, extra_context={**context, **(extra_context or {})})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        buttons = []
        if run is not None and self.has_change_permission(request, run):
            if run.status in models.ImportRun.RETRYABLE_STATUSES:
                buttons.append(_button(self.curation_url("retry", run.pk), "Retry", "default"))
            if run.status in models.ImportRun.ACTIVE_STATUSES:
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
                run = import_run_request(
                    **self._import_asked_for(form),
                    requested_by=request.user,
                    via=Via.ADMIN,
                    background=True,
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


class ImportProblemViews:
    """Retry an import problem's record, or ignore it."""

    curation_routes = [
        ("<int:object_id>/retry/", "retry_view", True),
        ("<int:object_id>/ignore/", "ignore_view", True),
    ]

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


class MergeCandidateViews:
    """Review a pair that may be one record: merge it or keep it apart."""

    curation_routes = [
        ("<int:object_id>/merge/", "merge_view", True),
        ("<int:object_id>/keep-apart/", "keep_apart_view", True),
    ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        candidate = self.get_object(request, object_id)
        context = {}
        if candidate is not None:
            context = {
                "comparison": selectors.candidate_comparison(candidate),
                "can_decide": candidate.status == models.MergeCandidate.Status.OPEN
                and self.has_change_permission(request, candidate),
                "merge_url": self.curation_url("merge", candidate.pk),
                "keep_apart_url": self.curation_url("keep_apart", candidate.pk),
                "decision_event": selectors.candidate_decision_event(candidate),
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


# The audit trail -----------------------------------------------------------------


class AuditEventViews:
    """Undo a decision from its entry in the audit trail."""

    curation_routes = [("<int:object_id>/undo/", "undo_view", True)]

    def can_undo(self, request, event) -> bool:
        """Undoing needs the change permission on the model the decision was about."""
        model = selectors.target_model(event.target_type)
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

"""Plain admin edits go to the audit trail like every staff decision.

Every ModelAdmin of the site derives from ``AuditedModelAdmin``: adding,
changing (inline rows too) and deleting a row through the admin writes an
AuditEvent named ``<record>_add``, ``<record>_change`` or ``<record>_delete``
(``institution_change``), with the fields that changed, before and after, or
the whole row that was deleted. The event is written in the admin's own
transaction, so an edit and its record stand or fall together. A delete's
confirmation page names a bounded number of the rows it takes along
(``curation.admin.limits``).
"""

from __future__ import annotations

import json
import re
from contextlib import suppress

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from catalogue.audit import audit_record
from curation.admin.display import JSONFormField
from curation.admin.limits import deleted_objects

SECRET_FIELDS = re.compile(r"password|secret|token|key$", re.I)  # never copied into the trail


def record_name(model: type[models.Model]) -> str:
    """``ImportRun`` -> ``import_run``: the first half of an action's name."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", model.__name__).lower()


def _plain(value):
    """A value as JSON can keep it (a row as its pk, a date as ISO text, a queryset as pks)."""
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, models.QuerySet):
        return sorted(value.values_list("pk", flat=True))
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder, default=str))


def _shown(name: str, value):
    return "(hidden)" if SECRET_FIELDS.search(name) else _plain(value)


def form_changes(form) -> dict:
    """{field: {"from": before, "to": after}} for what the admin form changed."""
    changes = {}
    for name in form.changed_data:
        field = form.fields.get(name)
        before = form.initial.get(name)
        if field is not None and before is not None and not isinstance(before, list):
            with suppress(ValidationError):  # else kept as the form held it
                before = field.to_python(before)
        changes[name] = {
            "from": _shown(name, before),
            "to": _shown(name, form.cleaned_data.get(name)),
        }
    return changes


def row_snapshot(obj: models.Model) -> dict:
    """Every concrete field of ``obj``, as stored (foreign keys as ids)."""
    return {
        f.attname: _shown(f.attname, getattr(obj, f.attname)) for f in obj._meta.concrete_fields
    }


def admin_audit(request, obj: models.Model, verb: str, data: dict) -> None:
    audit_record(
        actor=request.user,
        action=f"{record_name(type(obj))}_{verb}",
        target=obj,
        data={"via": "admin", **data},
    )


class AuditedModelAdmin(admin.ModelAdmin):
    """A ModelAdmin whose saves and deletes write AuditEvents."""

    # An address typed without a scheme is taken as https (records link out over https);
    # JSON (a source's payload) shows a lone surrogate escaped, not as a page that fails.
    formfield_overrides = {
        models.URLField: {"assume_scheme": "https"},
        models.JSONField: {"form_class": JSONFormField},
    }

    def save_model(self, request, obj, form, change):
        changes = form_changes(form) if change else {}
        super().save_model(request, obj, form, change)
        if change and not changes:
            return
        if change:
            admin_audit(request, obj, "change", {"changed": changes})
        else:
            admin_audit(request, obj, "add", {"row": row_snapshot(obj)})

    def save_formset(self, request, form, formset, change):
        edited = [f for f in formset.forms if f.instance.pk and f.has_changed()]
        before = {id(f): form_changes(f) for f in edited}
        for gone in formset.deleted_forms:
            if gone.instance.pk:
                admin_audit(request, gone.instance, "delete", {"row": row_snapshot(gone.instance)})
        super().save_formset(request, form, formset, change)
        for row in formset.new_objects:
            admin_audit(request, row, "add", {"row": row_snapshot(row), "in": _repr(form)})
        for inline_form in edited:
            if inline_form in formset.deleted_forms:
                continue
            changes = before[id(inline_form)]
            admin_audit(request, inline_form.instance, "change", {"changed": changes})

    def delete_model(self, request, obj):
        admin_audit(request, obj, "delete", {"row": row_snapshot(obj)})
        super().delete_model(request, obj)

    def get_deleted_objects(self, objs, request):
        # The first rows of each kind and counts: a record of any size confirms quickly.
        return deleted_objects(objs, request, self.admin_site)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            admin_audit(request, obj, "delete", {"row": row_snapshot(obj)})
        super().delete_queryset(request, queryset)


def _repr(form) -> str:
    return str(form.instance)[:300]

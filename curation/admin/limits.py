"""Admin pages that cost the same whatever the size of the record they show.

A large collaboration's work has thousands of authorships, references and
grants; an institution or a funder has thousands of rows pointing at it. A page
shows the first rows of such a list and links to, or counts, the rest:

- ``CappedTabularInline``: an inline edits the record's first ``rows_shown``
  rows and links to the list of all of them (the related model's changelist,
  filtered to the record). Its POST stays far below
  ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` too.
- ``deleted_objects``: the delete confirmation names the first rows of each
  kind that the delete takes along and counts the rest, reading them with the
  collector the delete itself uses.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.db import router
from django.db.models import ProtectedError, QuerySet, RestrictedError
from django.db.models.deletion import Collector
from django.forms.models import BaseInlineFormSet
from django.urls import NoReverseMatch, reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.text import capfirst

ROWS_SHOWN = 50  # rows of an inline; 50 rows of ~8 fields stay well within a POST's 1,000
DELETED_SHOWN = 20  # rows of each kind that a delete confirmation names


class CappedInlineFormSet(BaseInlineFormSet):
    """An inline formset over the record's first ``rows_shown`` rows (in the inline's order)."""

    rows_shown = ROWS_SHOWN
    rows_url = ""  # the changelist of all the rows, filtered to the record ("" if none)

    def get_queryset(self):
        if not hasattr(self, "_capped"):
            self._capped = super().get_queryset()[: self.rows_shown]
        return self._capped

    @cached_property
    def rows_total(self) -> int:
        shown = len(self.get_queryset())
        return shown if shown < self.rows_shown else super().get_queryset().count()

    @property
    def rows_left_out(self) -> int:
        return max(self.rows_total - self.rows_shown, 0)


class CappedTabularInline(admin.TabularInline):
    """A tabular inline showing a record's first rows, with a link to all of them."""

    formset = CappedInlineFormSet
    template = "admin/edit_inline/capped_tabular.html"
    rows_shown = ROWS_SHOWN

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.rows_shown = self.rows_shown
        formset.rows_url = self.rows_url(formset.fk, obj)
        return formset

    def rows_url(self, fk, obj) -> str:
        """The admin list of the inline's model, filtered to ``obj``'s rows."""
        if obj is None or not self.admin_site.is_registered(self.model):
            return ""
        opts = self.model._meta
        name = f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_changelist"
        lookup = f"{fk.name}__{fk.target_field.name}__exact"
        return f"{reverse(name)}?{urlencode({lookup: obj.pk})}"


# The delete confirmation -------------------------------------------------------


def _line(obj, admin_site) -> str:
    """``Grant: <a href="…">NSF 123</a>``, as Django's confirmation names a row."""
    opts = obj._meta
    label = capfirst(opts.verbose_name)
    if not admin_site.is_registered(type(obj)):
        return f"{label}: {obj}"
    try:
        url = reverse(
            f"{admin_site.name}:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]
        )
    except NoReverseMatch:
        return f"{label}: {obj}"
    return format_html('{}: <a href="{}">{}</a>', label, url, obj)


def _collected(collector: Collector, shown: int) -> dict:
    """{model: (count, first ``shown`` rows)} of what ``collector`` would delete.

    The collector reads only the columns a delete needs; the rows named are read
    again whole, with the rows they name (a grant's funder), in one query a kind.
    """
    found: dict = {}
    batches = [*collector.data.items(), *((rows.model, rows) for rows in collector.fast_deletes)]
    for model, rows in batches:
        count, pks = found.get(model, (0, []))
        room = max(shown - len(pks), 0)
        if isinstance(rows, QuerySet):  # deleted in bulk: counted, never read whole
            count += rows.count()
            pks = pks + (list(rows.values_list("pk", flat=True)[:room]) if room else [])
        else:
            count += len(rows)
            pks = pks + [row.pk for row in list(rows)[:room]]
        found[model] = (count, pks)
    return {
        model: (count, list(model._base_manager.select_related().filter(pk__in=pks)))
        for model, (count, pks) in found.items()
    }


def deleted_objects(objs, request, admin_site, *, shown: int = DELETED_SHOWN):
    """``ModelAdmin.get_deleted_objects`` whose cost does not grow with the related rows.

    Returns what Django's does: the rows to show (the records asked for, then
    the first ``shown`` rows of each other kind and how many more), the count
    of each kind, the kinds the user may not delete, and the protected rows.
    """
    objs = list(objs)
    if not objs:
        return [], {}, set(), []
    collector = Collector(using=router.db_for_write(type(objs[0])), origin=objs)
    try:
        collector.collect(objs)
    except ProtectedError as exc:
        return [], {}, set(), [_line(o, admin_site) for o in list(exc.protected_objects)[:shown]]
    except RestrictedError as exc:
        return [], {}, set(), [_line(o, admin_site) for o in list(exc.restricted_objects)[:shown]]
    roots = set(objs)
    lines = _lines(objs, len(objs), objs[0]._meta.verbose_name_plural, admin_site, shown)
    children, counts, perms_needed = [], {}, set()
    for model, (count, sample) in _collected(collector, shown).items():
        if not count:
            continue
        opts = model._meta
        counts[opts.verbose_name_plural] = count
        model_admin = admin_site._registry.get(model)
        sample_row = sample[0] if sample else None
        if model_admin and not model_admin.has_delete_permission(request, sample_row):
            perms_needed.add(opts.verbose_name)
        others = [o for o in sample if o not in roots]
        taken_along = count - sum(1 for o in objs if isinstance(o, model))
        children += _lines(others, taken_along, opts.verbose_name_plural, admin_site, shown)
    return [*lines, children] if children else lines, counts, perms_needed, []


def _lines(rows: list, total: int, plural: str, admin_site, shown: int) -> list[str]:
    """The first ``shown`` of ``rows`` named, and how many of ``total`` are left out."""
    lines = [_line(o, admin_site) for o in rows[:shown]]
    if total > len(lines):
        lines.append(f"… and {total - len(lines)} more {plural}")
    return lines

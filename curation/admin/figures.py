"""A work edited in the admin renews its authors' figures at once.

An edit changes what the authors' figures read (citations, h-index, primary
category, retractions in the trust score), so they are recomputed when the edit
commits, for the authors the work had before the edit as well as after it,
rather than at the nightly pass. Merges and splits already do the same.
"""

from __future__ import annotations

from catalogue.models import Work
from curation.constraints import metrics_refresh


class RenewsAuthorFigures:
    """For a ModelAdmin of Work, in front of ``AuditedModelAdmin``."""

    def save_model(self, request, obj, form, change):
        obj.authors_before_edit = _author_ids(obj) if change else set()
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if form.has_changed() or any(formset.has_changed() for formset in formsets):
            work = form.instance
            metrics_refresh(getattr(work, "authors_before_edit", set()) | _author_ids(work))

    def delete_model(self, request, obj):
        authors = _author_ids(obj)
        super().delete_model(request, obj)
        metrics_refresh(authors)


def _author_ids(work: Work) -> set[int]:
    return set(work.authorships.values_list("author_id", flat=True))

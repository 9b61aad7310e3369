"""The admin's front page for staff: what waits for a decision and what runs.

The queues are named here (``QUEUES``): a model, the rows that wait (a filter)
and the admin filter that lists exactly them. The front page
counts each queue the staff member may view, in one query per model, and
lists the imports under way with their progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.apps import apps
from django.contrib import admin
from django.db.models import Count, Q
from django.urls import reverse

RUNNING_SHOWN = 5


@dataclass
class Queue:
    label: str  # "Claims pending review"
    model: str  # "profiles.Claim"
    lookup: dict = field(default_factory=dict)  # the waiting rows: {"status": "pending"}

    def changelist_query(self) -> str:
        return urlencode({f"{key}__exact": value for key, value in self.lookup.items()})


QUEUES: list[Queue] = [
    Queue("Import problems open", "publications.ImportProblem", {"status": "open"}),
    Queue("Merge candidates open", "publications.MergeCandidate", {"status": "open"}),
    Queue("Claims pending review", "profiles.Claim", {"status": "pending"}),
    Queue("Claims disputed", "profiles.Claim", {"status": "disputed"}),
    Queue("Reports open", "profiles.Report", {"status": "open"}),
]


@dataclass
class QueueCount:
    label: str
    count: int
    url: str


def _visible_models(request, site) -> dict[str, object]:
    """Model label -> model admin, for the queued models this staff member may view."""
    visible = {}
    for label in {queue.model for queue in QUEUES}:
        model = apps.get_model(label)
        model_admin = site._registry.get(model)
        if model_admin is not None and model_admin.has_view_permission(request):
            visible[label] = model_admin
    return visible


def waiting(request, site=admin.site) -> list[QueueCount]:
    """Every queue the staff member may view, with how many rows wait in it."""
    visible = _visible_models(request, site)
    counts: dict[int, int] = {}  # by position in QUEUES
    for label in visible:
        mine = [(i, q) for i, q in enumerate(QUEUES) if q.model == label]
        totals = apps.get_model(label)._default_manager.aggregate(
            **{f"q{i}": Count("pk", filter=Q(**q.lookup)) for i, q in mine}
        )
        counts.update({i: totals[f"q{i}"] for i, _ in mine})
    rows = []
    for i, queue in enumerate(QUEUES):
        if queue.model not in visible:
            continue
        opts = visible[queue.model].opts
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        rows.append(QueueCount(queue.label, counts[i], f"{url}?{queue.changelist_query()}"))
    return rows


def running(request, site=admin.site) -> dict | None:
    """The imports under way (the newest few) with their progress, or None if not viewable."""
    from catalogue.models import ImportRun
    from curation.selectors import progress_text

    model_admin = site._registry.get(ImportRun)
    if model_admin is None or not model_admin.has_view_permission(request):
        return None
    active = ImportRun.objects.filter(status__in=ImportRun.ACTIVE_STATUSES).order_by(
        "-created_at", "-pk"
    )
    runs = list(active.only(*RUN_FIELDS)[: RUNNING_SHOWN + 1])
    changelist = reverse("admin:publications_importrun_changelist")
    return {
        "runs": [
            {
                "run": run,
                "url": reverse("admin:publications_importrun_change", args=[run.pk]),
                "progress": progress_text(run),
            }
            for run in runs[:RUNNING_SHOWN]
        ],
        "more": len(runs) > RUNNING_SHOWN,
        "url": changelist
        + "?"
        + urlencode({"status__in": ",".join(sorted(ImportRun.ACTIVE_STATUSES))}),
    }


RUN_FIELDS = ["pk", "source", "kind", "status", "processed", "total", "parameters", "created_at"]

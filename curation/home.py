"""The admin's front page for staff: what waits for a decision and what runs.

The queues are named here (``QUEUES``): a model, the rows that wait (a filter)
and the admin filter that lists exactly them. The front page shows each queue
whose model the staff member may view, with how many rows wait, when the oldest
of them was raised, and a link to the admin list filtered to exactly them. All
the shown queues are counted in one statement (a UNION ALL of one aggregate row
per queue), so a new queue adds no query. It also lists the imports under way
with their progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlencode

from django.apps import apps
from django.contrib import admin
from django.db.models import Count, Min, Value
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
    # Who is who: owners' requests to join or leave records, proposed splits.
    Queue("Identity requests pending", "publications.IdentityRequest", {"status": "pending"}),
    Queue("Split proposals open", "publications.SplitProposal", {"status": "open"}),
]


@dataclass
class Waiting:
    label: str
    count: int
    url: str
    oldest: datetime | None  # when the row waiting longest was raised; None if none waits


def waiting(request, site=admin.site) -> list[Waiting]:
    """Each queue the staff member may view, with its count and oldest row, in one query."""
    shown = []
    for queue in QUEUES:
        model_admin = site._registry.get(apps.get_model(queue.model))
        if model_admin is not None and model_admin.has_view_permission(request):
            shown.append((queue, model_admin.opts))
    totals = _totals([queue for queue, _ in shown])
    rows = []
    for i, (queue, opts) in enumerate(shown):
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        count, oldest = totals[i]
        rows.append(Waiting(queue.label, count, f"{url}?{queue.changelist_query()}", oldest))
    return rows


def _totals(shown: list[Queue]) -> dict[int, tuple[int, datetime | None]]:
    """Position in ``shown`` -> (rows waiting, when the oldest was raised), in one statement.

    Each part groups by a constant, which the database leaves out: an aggregate over
    no row still gives its one row (a count of 0).
    """
    if not shown:
        return {}
    parts = [
        apps.get_model(queue.model)
        ._default_manager.filter(**queue.lookup)
        .order_by()
        .values(queue_index=Value(i))
        .annotate(count=Count("pk"), oldest=Min("created_at"))
        for i, queue in enumerate(shown)
    ]
    union = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    return {row["queue_index"]: (row["count"], row["oldest"]) for row in union}


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

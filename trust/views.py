"""The page that explains trust scores, rendered from the same weights the score uses."""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from trust import weights
from trust.models import TrustScore


def _tiers() -> list[dict]:
    """Tiers from the lowest, each with its score range and how many records are in it."""
    counts = dict(
        TrustScore.objects.order_by()
        .values("tier")
        .annotate(n=Count("id"))
        .values_list("tier", "n")
    )
    tiers, upper = [], 100
    for lowest, value, label in weights.TIERS:
        tiers.append(
            {
                "value": value,
                "label": label,
                "low": lowest,
                "high": upper,
                "count": counts.get(value, 0),
            }
        )
        upper = lowest - 1
    return list(reversed(tiers))


def explain(request: HttpRequest) -> HttpResponse:
    components = [
        {"component": component, "weights": weights}
        for component, weights in weights.weights_by_component()
    ]
    context = {
        "levels": sorted(weights.LEVELS.items()),
        "tiers": _tiers(),
        "components": components,
        "positive_total": sum(c.maximum for c in weights.COMPONENTS),
        "recent_years": weights.RECENT_YEARS,
    }
    return render(request, "trust/explain.html", context)

"""Geometry of the citations-per-year bar chart, drawn as SVG by the page template.

Pure functions: numbers in, coordinates out. The template draws what these
return and repeats the numbers in a table for screen readers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

WIDTH = 640
HEIGHT = 220
MARGIN_LEFT = 44  # room for the value axis labels
MARGIN_RIGHT = 8
MARGIN_TOP = 18  # room for a value printed above the tallest bar
MARGIN_BOTTOM = 26  # room for the year labels
GAP_SHARE = 0.25  # share of each slot left empty between bars
MAX_YEAR_LABELS = 12
MAX_VALUE_LABELS = 16  # above this many bars, values are left to the table and tooltips


@dataclass(frozen=True)
class Bar:
    year: int
    value: int
    x: float
    y: float
    width: float
    height: float
    centre: float
    show_year: bool


@dataclass(frozen=True)
class Tick:
    value: int
    y: float


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    ticks: list[Tick]
    total: int
    peak: Bar
    first_year: int
    last_year: int
    width: int = WIDTH
    height: int = HEIGHT
    left: int = MARGIN_LEFT
    right: int = WIDTH - MARGIN_RIGHT
    baseline: int = HEIGHT - MARGIN_BOTTOM
    show_values: bool = True

    @property
    def description(self) -> str:
        return (
            f"Citations received each year from {self.first_year} to {self.last_year}: "
            f"{self.total:,} in those years, the most in {self.peak.year} ({self.peak.value:,})."
        )


def _years(by_year: Mapping[str, int]) -> dict[int, int]:
    """Citation counts by year, gaps inside the range filled with 0 (no citations that year)."""
    counts: dict[int, int] = {}
    for year, value in by_year.items():
        try:
            counts[int(year)] = max(int(value or 0), 0)
        except (TypeError, ValueError):
            continue
    if not counts:
        return {}
    return {year: counts.get(year, 0) for year in range(min(counts), max(counts) + 1)}


def nice_step(peak: int, *, lines: int = 4) -> int:
    """A round step (1, 2 or 5 times a power of ten) giving about ``lines`` grid lines."""
    if peak <= 0:
        return 1
    rough = peak / lines
    power = 10 ** math.floor(math.log10(rough))
    for factor in (1, 2, 5, 10):
        if factor * power >= rough:
            return max(int(factor * power), 1)
    return int(10 * power)


def citations_chart(by_year: Mapping[str, int] | None) -> Chart | None:
    """The bar chart of citations per year, or None when no year has a known count."""
    counts = _years(by_year or {})
    if not counts:
        return None
    step = nice_step(max(counts.values()))
    top = max(step * math.ceil(max(counts.values()) / step), step)
    plot_height = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    baseline = HEIGHT - MARGIN_BOTTOM
    slot = (WIDTH - MARGIN_LEFT - MARGIN_RIGHT) / len(counts)
    label_every = math.ceil(len(counts) / MAX_YEAR_LABELS)
    bars = []
    for index, (year, value) in enumerate(counts.items()):
        height = plot_height * value / top
        x = MARGIN_LEFT + index * slot + slot * GAP_SHARE / 2
        bars.append(
            Bar(
                year=year,
                value=value,
                x=round(x, 1),
                y=round(baseline - height, 1),
                width=round(slot * (1 - GAP_SHARE), 1),
                height=round(height, 1),
                centre=round(MARGIN_LEFT + (index + 0.5) * slot, 1),
                # Label the last year always, and every n-th year counting back from it.
                show_year=(len(counts) - 1 - index) % label_every == 0,
            )
        )
    ticks = [
        Tick(value=v, y=round(baseline - plot_height * v / top, 1)) for v in range(0, top + 1, step)
    ]
    return Chart(
        bars=bars,
        ticks=ticks,
        total=sum(counts.values()),
        peak=max(bars, key=lambda b: (b.value, b.year)),
        first_year=bars[0].year,
        last_year=bars[-1].year,
        show_values=len(bars) <= MAX_VALUE_LABELS,
    )

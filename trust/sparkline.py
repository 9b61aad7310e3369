"""A small line of the score over time, drawn on the server as SVG coordinates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

WIDTH, HEIGHT, PAD = 160, 36, 3


@dataclass
class Sparkline:
    width: int
    height: int
    points: str  # the polyline's "x,y x,y ..."
    last_x: float
    last_y: float
    mid_y: float  # where a score of 50 lies, for a faint guide line
    description: str
    first: tuple[int, datetime]
    last: tuple[int, datetime]
    count: int


def _y(score: int) -> float:
    """Scores 0-100 from the bottom to the top of the box, whatever the range seen."""
    return round(HEIGHT - PAD - (HEIGHT - 2 * PAD) * score / 100, 1)


def sparkline(history: list[tuple[int, datetime]]) -> Sparkline | None:
    """Coordinates for the history (oldest first), evenly spaced; None when it is empty."""
    if not history:
        return None
    count = len(history)
    step = (WIDTH - 2 * PAD) / (count - 1) if count > 1 else 0
    coords = [
        (round(PAD + i * step if count > 1 else WIDTH / 2, 1), _y(score))
        for i, (score, _) in enumerate(history)
    ]
    first, last = history[0], history[-1]
    if count == 1:
        text = f"One computation so far: {last[0]} on {last[1]:%b %-d, %Y}."
    else:
        text = (
            f"{count} recorded scores, from {first[0]} on {first[1]:%b %-d, %Y} "
            f"to {last[0]} on {last[1]:%b %-d, %Y}."
        )
    return Sparkline(
        width=WIDTH,
        height=HEIGHT,
        points=" ".join(f"{x},{y}" for x, y in coords),
        last_x=coords[-1][0],
        last_y=coords[-1][1],
        mid_y=_y(50),
        description=text,
        first=first,
        last=last,
        count=count,
    )

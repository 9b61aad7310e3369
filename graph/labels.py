"""Where the picture's names go: never over another name or a shape, never off the picture.

Everything here is in the SVG's own units. A label's box is estimated from its
characters: every character counts at least ``CHAR_WIDTH`` font sizes, and
capitals, wide letters and East Asian characters more, which covers the widest
common sans-serif fonts (DejaVu Sans, Chromium's ``system-ui`` on Linux,
averages 0.52-0.58 on names and titles). The most important nodes choose first;
each tries its longest text, then shorter and two-line forms, in eight spots
around its shape, and a node whose every form and spot would overlap goes
unlabelled: the list beside the picture names it.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from catalogue.display import clip, cut

Box = tuple[float, float, float, float]  # left, top, right, bottom

CHAR_WIDTH = 0.62  # the least width a character is counted, in font sizes
CAPITAL_WIDTH = 0.76
WIDE_WIDTH = 1.02  # m, w, M, W, the ellipsis, East Asian wide characters
WIDE_CHARACTERS = frozenset("mwMW@%…—")
BOLD = 1.13  # bold text is up to this much wider
ASCENT, DESCENT = 0.95, 0.27  # above and below the baseline, in font sizes
LINE_HEIGHT = 1.2
HALO = 0.13  # the white outline drawn around the letters, each side
GAP = 0.2  # between a shape and its label

LABEL_LENGTH = 28
LINE_LENGTH = 20
SHORT_LENGTH = 16
SHORT_LINE_LENGTH = 12
# Lowercase words that belong to the surname that follows them (van Gogh, de la Cruz).
SURNAME_PARTICLES = frozenset(
    "da das de del della der des di do dos du la le van von ter ten zu".split()  # noqa: SIM905
)
NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


@dataclass(frozen=True)
class Label:
    lines: tuple[str, ...]
    x: float  # where the text is anchored
    baseline: float  # of the first line
    anchor: str  # start, middle or end
    font: float
    bold: bool
    box: Box


@functools.cache
def char_width(character: str) -> float:
    if unicodedata.east_asian_width(character) in "WF" or character in WIDE_CHARACTERS:
        return WIDE_WIDTH
    if character.isupper():
        return CAPITAL_WIDTH
    return CHAR_WIDTH


def text_width(text: str, font: float, *, bold: bool = False) -> float:
    """A safe (wide) estimate of the advance of ``text`` at ``font``."""
    return sum(char_width(c) for c in text) * font * (BOLD if bold else 1.0)


def short_name(name: str) -> str:
    """A person's name as initials and the surname: "Ada B. Lovelace" → "A. B. Lovelace"."""
    words = name.split()
    if len(words) < 2:
        return name
    end = len(words) - 1
    suffix = words[end].lower() in NAME_SUFFIXES or not any(c.isalpha() for c in words[end])
    if suffix and end > 1:
        end -= 1
    start = end
    while start > 1 and words[start - 1] in SURNAME_PARTICLES:
        start -= 1
    given = words[:start]
    if not all(word[0].isalpha() for word in given):
        return name
    initials = " ".join(f"{word[0]}." for word in given)
    return f"{initials} {' '.join(words[start:])}"


def _two_lines(text: str, length: int) -> tuple[str, ...] | None:
    """``text`` broken at the space that best balances two lines of at most ``length``."""
    words = text.split()
    if len(words) < 2:
        return None
    breaks = range(1, len(words))
    split = min(breaks, key=lambda i: max(len(" ".join(words[:i])), len(" ".join(words[i:]))))
    first, second = " ".join(words[:split]), " ".join(words[split:])
    if len(first) > length:
        return None
    return first, cut(second, length)


def forms(text: str, *, short: str | None = None) -> list[tuple[str, ...]]:
    """The ways to write a label, most telling first: whole, on two lines, then shorter.

    ``short``: the label's own shorter form (a person's initials and surname, a
    group's count); without one, the start of ``text``.
    """
    text = " ".join(clip(text, "title").split())
    candidates: list[tuple[str, ...] | None] = [
        (cut(text, LABEL_LENGTH),),
        _two_lines(cut(text, 2 * LINE_LENGTH), LINE_LENGTH),
    ]
    if short:
        candidates += [(cut(short, LABEL_LENGTH),), (cut(short, SHORT_LENGTH),)]
    else:
        candidates += [
            (cut(text, SHORT_LENGTH),),
            _two_lines(cut(text, 2 * SHORT_LINE_LENGTH), SHORT_LINE_LENGTH),
        ]
    found: list[tuple[str, ...]] = []
    for form in candidates:
        # A form is worth showing when it keeps a few letters besides the "…".
        if form and form not in found and all(len(line.rstrip("…")) >= 3 for line in form):
            found.append(form)
    return found


def overlaps(box: Box, boxes: Iterable[Box]) -> bool:
    x1, y1, x2, y2 = box
    return any(x1 < b[2] and b[0] < x2 and y1 < b[3] and b[1] < y2 for b in boxes)


# The directions of the eight spots, right, left, above, below, then the corners.
SPOT_DIRECTIONS = (
    (1, 0),
    (-1, 0),
    (0, -1),
    (0, 1),
    (0.45, -0.9),
    (0.45, 0.9),
    (-0.45, -0.9),
    (-0.45, 0.9),
)


def _spots(
    mark: Box, width: float, height: float, gap: float, outward: tuple[float, float] = (0, 0)
) -> list[tuple[float, float, str]]:
    """Left and top of a ``width`` × ``height`` block in eight spots around ``mark``.

    Each spot is ``gap`` clear of the mark sideways or up and down (the corners
    above and below start over the mark's outer part, which reads as its own).
    The spots facing ``outward`` (away from the picture's middle) come first.
    """
    left, top, right, bottom = mark
    cx, cy = (left + right) / 2, (top + bottom) / 2
    beside = cy - height / 2
    above, below = top - gap - height, bottom + gap
    inner_right, inner_left = cx + (right - cx) * 0.5, cx - (cx - left) * 0.5
    spots = [
        (right + gap, beside, "start"),
        (left - gap - width, beside, "end"),
        (cx - width / 2, above, "middle"),
        (cx - width / 2, below, "middle"),
        (inner_right, above, "start"),
        (inner_right, below, "start"),
        (inner_left - width, above, "end"),
        (inner_left - width, below, "end"),
    ]
    facing = [-(dx * outward[0] + dy * outward[1]) for dx, dy in SPOT_DIRECTIONS]
    return [spot for _, spot in sorted(zip(facing, spots, strict=True), key=lambda p: p[0])]


def _label_at(
    lines: tuple[str, ...],
    left: float,
    top: float,
    anchor: str,
    font: float,
    bold: bool,
    block: tuple[float, float],
) -> Label:
    width, height = block
    x = {"start": left, "middle": left + width / 2, "end": left + width}[anchor]
    halo = font * HALO
    box = (left - halo, top - halo, left + width + halo, top + height + halo)
    return Label(lines, x, top + font * ASCENT, anchor, font, bold, box)


def reserve(text: str, mark: Box, *, short: str | None, size: float, font: float) -> Box | None:
    """The box the first form of ``text`` that fits the picture takes at its first such spot.

    ``place`` tries the same forms and spots in the same order, so with no shape
    in this box (and no label placed before), the label goes here or earlier.
    """
    inside = _inside(size, font)
    for lines in forms(text, short=short):
        block = _block(lines, font, True)
        for left, top, anchor in _spots(mark, *block, font * (GAP + HALO)):
            box = _label_at(lines, left, top, anchor, font, True, block).box
            if _within(box, inside):
                return box
    return None


def _inside(size: float, font: float) -> Box:
    return (font * HALO, font * HALO, size - font * HALO, size - font * HALO)


def _within(box: Box, inside: Box) -> bool:
    return (
        box[0] >= inside[0] and box[1] >= inside[1] and box[2] <= inside[2] and box[3] <= inside[3]
    )


def _block(lines: tuple[str, ...], font: float, bold: bool) -> tuple[float, float]:
    """The width and height of the text of ``lines``, halo aside."""
    width = max(text_width(line, font, bold=bold) for line in lines)
    return width, font * (ASCENT + DESCENT + LINE_HEIGHT * (len(lines) - 1))


def place(
    order: list[tuple[str, str, str | None, bool, tuple[float, float]]],
    marks: dict[str, Box],
    *,
    size: float,
    font: float,
    limit: int,
) -> dict[str, Label]:
    """Labels for up to ``limit`` nodes of ``order`` that overlap nothing, inside the picture.

    ``order``: (node id, text, its shorter form or None, bold, outward direction),
    most important first;
    ``marks``: the box of every shape drawn, labelled or not.
    """
    taken: list[Box] = list(marks.values())
    placed: dict[str, Label] = {}
    inside = _inside(size, font)
    for node_id, text, short, bold, outward in order:
        if len(placed) >= limit:
            break
        candidates = forms(text, short=short)
        label = _first_fit(candidates, marks[node_id], taken, inside, font, bold, outward)
        if label is not None:
            placed[node_id] = label
            taken.append(label.box)
    return placed


def _first_fit(
    candidates: list[tuple[str, ...]],
    mark: Box,
    taken: list[Box],
    inside: Box,
    font: float,
    bold: bool,
    outward: tuple[float, float],
) -> Label | None:
    gap = font * (GAP + HALO)
    for lines in candidates:
        block = _block(lines, font, bold)
        for left, top, anchor in _spots(mark, *block, gap, outward):
            label = _label_at(lines, left, top, anchor, font, bold, block)
            if _within(label.box, inside) and not overlaps(label.box, taken):
                return label
    return None

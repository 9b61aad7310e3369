"""Scores of a grouping of bylines against the truth: pairwise and B-cubed."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass


@dataclass
class Scores:
    pair_p: float
    pair_r: float
    pair_f: float
    b3_p: float
    b3_r: float
    b3_f: float
    split: int  # people whose bylines end in more than one record
    mixed: int  # records that hold bylines of more than one person
    people: int
    records: int
    excused: int = 0  # merged pairs left out of precision: one person under two ids
    mixed_excused: int = 0  # records "holding two people" that hold one person under two ids


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def score(predicted: dict[str, int], truth: dict[str, str], excused=frozenset()) -> Scores:
    """``predicted`` and ``truth`` map each byline id to its record and its person.

    ``excused`` holds pairs of truth labels (sorted tuples) judged to be one
    person under two ids: a merge across them is not counted against precision.
    """
    cells: Counter = Counter()
    for byline, person in truth.items():
        cells[(predicted[byline], person)] += 1
    records: Counter = Counter()
    people: Counter = Counter()
    spread: dict[str, set] = defaultdict(set)
    holds: dict[int, set] = defaultdict(set)
    for (record, person), count in cells.items():
        records[record] += count
        people[person] += count
        spread[person].add(record)
        holds[record].add(person)
    together = sum(_pairs(c) for c in cells.values())
    predicted_pairs = sum(_pairs(c) for c in records.values())
    true_pairs = sum(_pairs(c) for c in people.values())
    excused_pairs = _excused_pairs(cells, holds, excused)
    denominator = predicted_pairs - excused_pairs
    pair_p = together / denominator if denominator else 1.0
    pair_r = together / true_pairs if true_pairs else 1.0
    total = sum(cells.values())
    b3_p = sum(c * c / records[r] for (r, _), c in cells.items()) / total
    b3_r = sum(c * c / people[p] for (_, p), c in cells.items()) / total
    return Scores(
        pair_p,
        pair_r,
        _f1(pair_p, pair_r),
        b3_p,
        b3_r,
        _f1(b3_p, b3_r),
        split=sum(1 for records_of in spread.values() if len(records_of) > 1),
        mixed=sum(1 for persons in holds.values() if len(persons) > 1),
        people=len(people),
        records=len(records),
        excused=excused_pairs,
        mixed_excused=sum(1 for persons in holds.values() if _one_person(persons, excused)),
    )


def _one_person(persons: set, excused) -> bool:
    ordered = sorted(persons)
    pairs = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :]]
    return bool(pairs) and all(pair in excused for pair in pairs)


def _excused_pairs(cells: Counter, holds: dict, excused) -> int:
    if not excused:
        return 0
    count = 0
    for record, persons in holds.items():
        ordered = sorted(persons)
        for i, left in enumerate(ordered):
            for right in ordered[i + 1 :]:
                if (left, right) in excused:
                    count += cells[(record, left)] * cells[(record, right)]
    return count


HEADER = (
    f"{'set':<24} {'method':<7} {'bylines':>8} {'pair P':>7} {'pair R':>7} {'pair F1':>7} "
    f"{'B3 P':>6} {'B3 R':>6} {'B3 F1':>6} {'split':>6} {'mixed':>6} {'s/1k':>7}"
)


def line(name: str, method: str, bylines: int, scores: Scores, seconds: float) -> str:
    return (
        f"{name:<24} {method:<7} {bylines:>8} {scores.pair_p:>7.4f} {scores.pair_r:>7.4f} "
        f"{scores.pair_f:>7.4f} {scores.b3_p:>6.3f} {scores.b3_r:>6.3f} {scores.b3_f:>6.3f} "
        f"{scores.split:>6} {scores.mixed:>6} {seconds * 1000 / max(bylines, 1):>7.3f}"
    )

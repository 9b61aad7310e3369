"""How two works are scored against each other, and the reasons shown for a match."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catalogue.models import Author
from similarity.corpus import Corpus

NEIGHBOURS = 5
WEIGHTS = {"text": 0.5, "topics": 0.2, "authors": 0.1, "references": 0.1, "citers": 0.1}
CITATION_HALF = 3.0  # shared works at which a citation component is worth half its weight
MIN_SCORE = 0.05
# A component is named as a reason when it adds at least this much to the score.
REASON_MIN_CONTRIBUTION = 0.03
NAMES_IN_REASON = 3


@dataclass
class Match:
    similar_row: int
    score: float
    text: float
    topics: float
    authors: float
    references: int = 0  # works both cite
    citers: int = 0  # works held here that cite both


def citation_weight(shared: float) -> float:
    """What ``shared`` works in common are worth, from 0 towards 1."""
    return shared / (shared + CITATION_HALF) if shared > 0 else 0.0


def _columns(matrix, row: int) -> np.ndarray:
    """The columns set in one row of a CSR matrix (no row matrix built)."""
    return matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]]


def _shared_columns(matrix, row: int, other: int) -> list[int]:
    """Columns set in both rows, in order (sets: rows hold a handful of entries)."""
    return sorted(set(_columns(matrix, row).tolist()) & set(_columns(matrix, other).tolist()))


def _names(items: list[str]) -> str:
    shown = items[:NAMES_IN_REASON]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def reasons(corpus: Corpus, row: int, match: Match, author_names: dict[int, str]) -> list[dict]:
    """Why two works match, largest contribution first, each as {kind, label}."""
    found = []
    if match.topics:
        shared = _shared_columns(corpus.topics, row, match.similar_row)
        topic_ids = sorted(
            (int(corpus.topic_ids[c]) for c in shared),
            key=lambda t: (corpus.topic_frequency.get(t, 0), corpus.topic_names.get(t, "")),
        )
        names = [corpus.topic_names.get(t, "?") for t in topic_ids]
        label = ("shares topic " if len(names) == 1 else "shares topics ") + _names(names)
        found.append((WEIGHTS["topics"] * match.topics, "topics", label))
    if match.authors:
        if match.authors >= 1.0:
            label = "same authors"
        else:
            shared = _shared_columns(corpus.authors, row, match.similar_row)
            names = [author_names.get(int(corpus.author_ids[c]), "?") for c in shared]
            label = ("shares author " if len(names) == 1 else "shares authors ") + _names(names)
        found.append((WEIGHTS["authors"] * match.authors, "authors", label))
    if match.references:
        count = match.references
        label = f"cites {count if count > 1 else 'one'} of the same works"
        found.append((WEIGHTS["references"] * citation_weight(count), "references", label))
    if match.citers:
        count = match.citers
        label = f"cited together by {count} work{'s' if count != 1 else ''}"
        found.append((WEIGHTS["citers"] * citation_weight(count), "citers", label))
    if match.text:
        both = corpus.has_abstract[row] and corpus.has_abstract[match.similar_row]
        label = "similar abstract" if both else "similar title"
        found.append((WEIGHTS["text"] * match.text, "text", label))
    found.sort(key=lambda item: -item[0])
    kept = [item for item in found if item[0] >= REASON_MIN_CONTRIBUTION] or found[:1]
    return [{"kind": kind, "label": label} for _, kind, label in kept]


def _author_names(corpus: Corpus, pairs: list[tuple[int, Match]]) -> dict[int, str]:
    wanted = set()
    for row, match in pairs:
        if 0 < match.authors < 1.0:
            shared = _shared_columns(corpus.authors, row, match.similar_row)
            wanted.update(int(corpus.author_ids[c]) for c in shared)
    if not wanted:
        return {}
    return dict(Author.objects.filter(id__in=wanted).values_list("id", "display_name"))

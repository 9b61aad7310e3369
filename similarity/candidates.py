"""Exact scores of each work against its candidates (``neighbours``), not the whole corpus."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from similarity.corpus import Corpus
from similarity.neighbours import Neighbours
from similarity.scoring import CITATION_HALF, MIN_SCORE, NEIGHBOURS, WEIGHTS, Match

# Works scored at once: their candidate pairs are a few arrays of this many x k cells.
CHUNK_ROWS = 5_000


@dataclass
class CandidateScores:
    """Scores of ``rows`` against their candidates ``cols`` (-1: no candidate)."""

    rows: np.ndarray
    cols: np.ndarray
    text: np.ndarray
    topics: np.ndarray
    authors: np.ndarray
    references: np.ndarray
    citers: np.ndarray
    score: np.ndarray
    order: np.ndarray | None = None  # per row, candidate positions best first, ties by row

    def __post_init__(self) -> None:
        if self.order is None:
            self.order = np.lexsort((self.cols, -self.score), axis=1)


def _shared(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Row-wise inner products of ``matrix[left]`` and ``matrix[right]``."""
    if not matrix.shape[1] or not len(left):
        return np.zeros(len(left), dtype=np.float32)
    product = matrix[left].multiply(matrix[right])
    return np.asarray(product.sum(axis=1), dtype=np.float32).ravel()


def _jaccard(shared: np.ndarray, sizes: np.ndarray, left, right) -> np.ndarray:
    union = sizes[left] + sizes[right] - shared
    return shared / np.maximum(union, 1)


def score_candidates(
    corpus: Corpus, rows: np.ndarray, neighbours: Neighbours
) -> Iterator[CandidateScores]:
    """Exact scores of ``rows`` against their candidates, a chunk of rows at a time."""
    topic_sizes = np.asarray(corpus.topics.sum(axis=1), dtype=np.float32).ravel()
    author_sizes = np.asarray(corpus.authors.sum(axis=1), dtype=np.float32).ravel()
    for begin in range(0, len(rows), CHUNK_ROWS):
        chunk = rows[begin : begin + CHUNK_ROWS]
        cols = neighbours.of(chunk)
        present = cols >= 0
        left = np.repeat(chunk, cols.shape[1])[present.ravel()]
        right = cols[present]
        parts = {
            "text": np.clip(_shared(corpus.text, left, right), 0.0, 1.0),
            "topics": _jaccard(_shared(corpus.topics, left, right), topic_sizes, left, right),
            "authors": _jaccard(_shared(corpus.authors, left, right), author_sizes, left, right),
            "references": _shared(corpus.references, left, right),
            "citers": _shared(corpus.citers, left, right),
        }
        score = WEIGHTS["text"] * parts["text"] + WEIGHTS["topics"] * parts["topics"]
        score += WEIGHTS["authors"] * parts["authors"]
        for name in ("references", "citers"):
            score += WEIGHTS[name] * parts[name] / (parts[name] + np.float32(CITATION_HALF))
        shaped = {}
        for name, values in (*parts.items(), ("score", score)):
            full = np.full(cols.shape, -1.0 if name == "score" else 0.0, dtype=np.float32)
            full[present] = values
            shaped[name] = full
        yield CandidateScores(chunk, cols, **shaped)


def best_among(scores: CandidateScores, i: int, *, limit: int = NEIGHBOURS) -> list[Match]:
    """The ``limit`` best matches of the chunk's ``i``-th work, best first, ties by id."""
    row = scores.score[i]
    kept = [j for j in scores.order[i, :limit].tolist() if row[j] >= MIN_SCORE]
    return [
        Match(
            int(scores.cols[i, j]),
            float(row[j]),
            float(scores.text[i, j]),
            float(scores.topics[i, j]),
            float(scores.authors[i, j]),
            int(round(float(scores.references[i, j]))),
            int(round(float(scores.citers[i, j]))),
        )
        for j in kept
    ]


def prior_among(corpus: Corpus, scores: CandidateScores) -> np.ndarray:
    """Highest text cosine of each row to an earlier candidate (NaN: not known).

    The approximation: only the work's candidates are looked at, so an earlier
    work whose text is close only in words many works share may be missed.
    """
    rows, cols = scores.rows, scores.cols
    earlier = (cols >= 0) & (corpus.end[cols] < corpus.start[rows][:, None])
    best = np.where(earlier, scores.text, np.float32(0)).max(axis=1, initial=0.0)
    unknown = (corpus.start[rows] < 0) | ~corpus.has_text[rows]
    return np.where(unknown, np.nan, np.round(best, 4))


def raised_among(corpus: Corpus, scores: CandidateScores, *, exclude: set[int]) -> dict[int, float]:
    """Later candidates whose closest earlier work is now one of this chunk's."""
    rows, cols = scores.rows, scores.cols
    later = (cols >= 0) & (corpus.start[cols] > corpus.end[rows][:, None])
    known = (corpus.start[cols] >= 0) & corpus.has_text[cols]
    current = np.nan_to_num(corpus.prior[cols], nan=np.inf)
    raised: dict[int, float] = {}
    for i, j in zip(*np.nonzero(later & known & (scores.text > current + 1e-4)), strict=True):
        other = int(cols[i, j])
        if other not in exclude:
            raised[other] = max(raised.get(other, 0.0), round(float(scores.text[i, j]), 4))
    return raised

"""Exact scores of some works against the whole corpus, a chunk of works at a time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from similarity.corpus import Corpus
from similarity.scoring import (
    CITATION_HALF,
    MIN_SCORE,
    NEIGHBOURS,
    WEIGHTS,
    Match,
)

# Score cells computed at once (chunk rows x corpus size): about 40 MB of float32 arrays.
CHUNK_CELLS = 2_000_000


def _jaccard(rows: sparse.csr_matrix, others_t: sparse.csr_matrix, sizes: np.ndarray, chunk):
    """Dense Jaccard overlap of ``rows`` (a chunk) with every work."""
    shared = (rows @ others_t).tocoo()
    result = np.zeros(shared.shape, dtype=np.float32)
    union = sizes[chunk][shared.row] + sizes[shared.col] - shared.data
    result[shared.row, shared.col] = shared.data / np.maximum(union, 1)
    return result


@dataclass
class ChunkScores:
    rows: np.ndarray
    text: np.ndarray
    topics: np.ndarray
    authors: np.ndarray
    score: np.ndarray
    references: np.ndarray | None = None  # counts of works both cite
    citers: np.ndarray | None = None  # counts of works citing both


def _shared_counts(rows: sparse.csr_matrix, others_t: sparse.csr_matrix) -> np.ndarray:
    if not others_t.shape[0]:
        return np.zeros((rows.shape[0], others_t.shape[1]), dtype=np.float32)
    return (rows @ others_t).toarray().astype(np.float32, copy=False)


def _weighted(counts: np.ndarray) -> np.ndarray:
    return counts / (counts + np.float32(CITATION_HALF))


def chunk_size(corpus: Corpus) -> int:
    return max(1, CHUNK_CELLS // max(len(corpus), 1))


def score_chunks(corpus: Corpus, rows: np.ndarray) -> Iterator[ChunkScores]:
    """Scores of ``rows`` against the whole corpus, a chunk of rows at a time."""
    text_t, topics_t, authors_t = corpus.transposed()
    references_t, citers_t = corpus.citations_transposed()
    topic_sizes = np.asarray(corpus.topics.sum(axis=1)).ravel()
    author_sizes = np.asarray(corpus.authors.sum(axis=1)).ravel()
    size = chunk_size(corpus)
    for begin in range(0, len(rows), size):
        chunk = rows[begin : begin + size]
        text = (corpus.text[chunk] @ text_t).toarray()
        np.clip(text, 0.0, 1.0, out=text)
        topics = _jaccard(corpus.topics[chunk], topics_t, topic_sizes, chunk)
        authors = _jaccard(corpus.authors[chunk], authors_t, author_sizes, chunk)
        score = WEIGHTS["text"] * text + WEIGHTS["topics"] * topics
        score += WEIGHTS["authors"] * authors
        references = _shared_counts(corpus.references[chunk], references_t)
        citers = _shared_counts(corpus.citers[chunk], citers_t)
        score += WEIGHTS["references"] * _weighted(references)
        score += WEIGHTS["citers"] * _weighted(citers)
        score[np.arange(len(chunk)), chunk] = -1.0  # never one's own match
        yield ChunkScores(chunk, text, topics, authors, score, references, citers)


def best_matches(scores: ChunkScores, i: int, *, limit: int = NEIGHBOURS) -> list[Match]:
    """The ``limit`` best matches of the chunk's ``i``-th work, best first, ties by id."""
    row = scores.score[i]
    candidates = np.flatnonzero(row >= MIN_SCORE)
    if len(candidates) > limit * 4:
        keep = np.argpartition(-row[candidates], limit * 4 - 1)[: limit * 4]
        candidates = candidates[keep]
    ordered = sorted(candidates.tolist(), key=lambda j: (-float(row[j]), j))[:limit]
    return [
        Match(
            j,
            float(row[j]),
            float(scores.text[i, j]),
            float(scores.topics[i, j]),
            float(scores.authors[i, j]),
            int(scores.references[i, j]) if scores.references is not None else 0,
            int(scores.citers[i, j]) if scores.citers is not None else 0,
        )
        for j in ordered
    ]


def prior_similarity(corpus: Corpus, scores: ChunkScores) -> np.ndarray:
    """Highest text cosine of each chunk row to a strictly earlier work (NaN: not known)."""
    rows = scores.rows
    earlier = corpus.end[None, :] < corpus.start[rows][:, None]
    best = np.where(earlier, scores.text, np.float32(0)).max(axis=1, initial=0.0)
    unknown = (corpus.start[rows] < 0) | ~corpus.has_text[rows]
    return np.where(unknown, np.nan, np.round(best, 4))

"""Candidate matches from approximate nearest neighbours, so no work meets every other.

Each work becomes one dense vector whose inner products follow the score: the
five sparse parts (text, topics, authors, references, citers), each row
L2-normalised and weighed by the square root of its weight, side by side, then
reduced by a truncated SVD fitted on a sample (``SVD_SAMPLE`` works, so its cost
does not grow with the corpus) and normalised. A faiss HNSW graph over those
vectors gives each work its ``CANDIDATES`` nearest others in about log(n) steps;
the candidates are then scored exactly (``publications.similarity.candidates``),
so a match shows the same score and reasons as if every pair had been compared.
Prior similarity (the closest earlier text) is read among the same candidates:
a second index by text alone doubled the cost of a build and found the same
prior for all but about 2% of works more (bench/similarity_bench.py).

Below ``EXACT_BELOW`` works every work is a candidate of every other: the answer
is exact and no index is built. ``neighbours_for`` picks the index only where it
pays: on a corpus of ``INDEX_FROM`` works or more, for more than
``UPDATE_EXACT_MAX`` works at once; otherwise ``ExactNeighbours`` takes each
work's candidates from its exact scores against the corpus.
"""

from __future__ import annotations

import faiss
import numpy as np
from scipy import sparse
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize

from publications.similarity.corpus import Corpus
from publications.similarity.exact import score_chunks
from publications.similarity.scoring import NEIGHBOURS, WEIGHTS

CANDIDATES = 120
DIMENSIONS = 256
SVD_SAMPLE = 50_000
# Power iterations of the randomised SVD: two gave a higher recall@5 than four
# (0.944 against 0.933 on the 20k sample of bench/similarity_bench.py), in less time.
SVD_ITERATIONS = 2
EXACT_BELOW = 2_000
# Below this many works exact scores cost less than reducing and indexing them
# (at 20k works: 18 s of CPU against 57 s, bench/similarity_bench.py).
INDEX_FROM = 20_000
# Up to this many works to place (an update), exact scores cost less than an index.
UPDATE_EXACT_MAX = 5_000
# HNSW: links per node, and how wide the build and the search look. Past these
# values a build costs far more for the same recall of the exact lists.
HNSW_LINKS = 16
HNSW_BUILD_WIDTH = 40
HNSW_SEARCH_WIDTH = 128
# Works whose vectors are computed (and searched) at once.
BATCH = 20_000
SEED = 7


ALL_PARTS = ("text", "topics", "authors", "references", "citers")


def _parts(corpus: Corpus, rows: np.ndarray, names=ALL_PARTS) -> sparse.csr_matrix:
    """The weighted, normalised sparse parts of ``rows``, side by side."""
    blocks = []
    for name in names:
        matrix = getattr(corpus, name)
        if matrix.shape[1]:
            block = normalize(matrix[rows].astype(np.float32), copy=False)
            blocks.append(block * np.float32(np.sqrt(WEIGHTS[name])))
    if not blocks:
        return sparse.csr_matrix((len(rows), 0), dtype=np.float32)
    return sparse.hstack(blocks, format="csr", dtype=np.float32)


def embed(corpus: Corpus, names=ALL_PARTS) -> np.ndarray:
    """Dense unit vectors (works x dimensions, float32) whose inner products follow the score.

    ``names``: the parts of the score to follow (all of them, or only the text).
    """
    n = len(corpus)
    sample = np.arange(n)
    if n > SVD_SAMPLE:
        sample = np.sort(np.random.default_rng(SEED).choice(n, SVD_SAMPLE, replace=False))
    fitted = _parts(corpus, sample, names)
    dimensions = min(DIMENSIONS, max(fitted.shape[1] - 1, 1), max(len(sample) - 1, 1))
    vectors = np.zeros((n, dimensions), dtype=np.float32)
    if not fitted.shape[1] or fitted.shape[1] < 2:
        return vectors
    svd = TruncatedSVD(n_components=dimensions, n_iter=SVD_ITERATIONS, random_state=SEED).fit(
        fitted
    )
    del fitted
    components = svd.components_.astype(np.float32).T
    for begin in range(0, n, BATCH):
        rows = np.arange(begin, min(begin + BATCH, n))
        vectors[rows] = _parts(corpus, rows, names) @ components
    return normalize(vectors, copy=False)


def _index(vectors: np.ndarray, graph: bool):
    if graph:
        index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_BUILD_WIDTH
        index.hnsw.efSearch = HNSW_SEARCH_WIDTH
    else:  # a few works to place: a flat scan costs less than building a graph
        index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    return index


class Neighbours:
    """Nearest works by the whole score for any row of the corpus."""

    def __init__(self, corpus: Corpus, *, graph: bool = True):
        self.size = len(corpus)
        self.searches = []  # (vectors, index) pairs
        if self.size >= EXACT_BELOW:
            vectors = embed(corpus)
            self.searches.append((vectors, _index(vectors, graph)))

    def of(self, rows: np.ndarray, *, k: int = CANDIDATES) -> np.ndarray:
        """The candidate rows of each of ``rows`` (-1 where there are fewer; never itself)."""
        if not self.searches:  # small corpus: everyone
            others = np.tile(np.arange(self.size), (len(rows), 1))
            others[others == rows[:, None]] = -1
            return others
        found = np.hstack([index.search(vectors[rows], k)[1] for vectors, index in self.searches])
        found[found == rows[:, None]] = -1
        found.sort(axis=1)
        repeated = np.zeros(found.shape, dtype=bool)
        repeated[:, 1:] = found[:, 1:] == found[:, :-1]
        found[repeated] = -1
        return found


class ExactNeighbours:
    """Candidates from exact scores against the whole corpus, with no index.

    Each work costs one sparse product against the corpus. For a batch of new or
    changed works (an update) that is far less than reducing and indexing every
    work, and below ``INDEX_FROM`` works it is less even for a full build. The
    candidates are the ``k`` best by the whole score, the ``k`` closest by text and
    the closest earlier text, so lists and prior similarities are exact.
    """

    def __init__(self, corpus: Corpus, *, k: int = CANDIDATES):
        self.corpus = corpus
        self.k = k

    def of(self, rows: np.ndarray) -> np.ndarray:
        k = self.k
        found = np.full((len(rows), 2 * k + 1), -1, dtype=np.int64)
        done = 0
        for scores in score_chunks(self.corpus, rows):
            chunk = scores.rows
            earlier = self.corpus.end[None, :] < self.corpus.start[chunk][:, None]
            parts = (
                (scores.score, k),
                (scores.text, k),
                (np.where(earlier, scores.text, np.float32(-1)), 1),
            )
            column = 0
            for values, wanted in parts:
                values = values.copy()
                values[np.arange(len(chunk)), chunk] = -np.inf  # never itself
                width = min(wanted, values.shape[1])
                best = np.argpartition(-values, width - 1, axis=1)[:, :width]
                found[done : done + len(chunk), column : column + width] = best
                column += wanted
            done += len(chunk)
        found[found == rows[:, None]] = -1  # a corpus smaller than k: never itself
        found.sort(axis=1)
        repeated = np.zeros(found.shape, dtype=bool)
        repeated[:, 1:] = found[:, 1:] == found[:, :-1]
        found[repeated & (found >= 0)] = -1
        return found


def neighbours_for(corpus: Corpus, rows: int, *, graph: bool = True):
    """The cheaper way to find candidates for ``rows`` works of ``corpus``.

    A full build needs of each work only its best matches and its closest earlier
    text, so exact candidates are those alone; an update also looks further down
    each new work's candidates (for lists it may enter), so it keeps ``CANDIDATES``.
    """
    if rows >= len(corpus) and len(corpus) < INDEX_FROM:
        return ExactNeighbours(corpus, k=4 * NEIGHBOURS)  # room for ties at the last place
    if len(corpus) < INDEX_FROM or rows <= UPDATE_EXACT_MAX:
        return ExactNeighbours(corpus)
    return Neighbours(corpus, graph=graph)

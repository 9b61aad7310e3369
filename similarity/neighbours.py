"""Candidate matches, so no work meets every other.

Each work gets candidates three ways, then every candidate is scored exactly
(``similarity.candidates``), so a match shows the same score and
reasons as if every pair had been compared:

- nearest by the whole score, in an approximate nearest-neighbour index. Each
  work becomes one dense vector whose inner products follow the score: the five
  sparse parts (text, topics, authors, references, citers), each row
  L2-normalised and weighed by the square root of its weight, side by side,
  reduced by a truncated SVD fitted on a sample (``SVD_SAMPLE`` works, so its
  cost does not grow with the corpus) and normalised; a faiss HNSW graph gives
  each work its ``INDEX_CANDIDATES`` nearest others in about log(n) steps;
- most shared rare words: the text part's inner products, counting only terms
  found in at most ``SHARED_BY_AT_MOST`` works;
- most shared topics, authors, cited works and citers, counted the same way.

The reduction keeps what many works share and loses what sets a few apart: a
keyword of one group, a team. Among the thousands of works of a field at a
million works those decide the best five, and the reduced vectors alone found
15% of them (bench/similarity_bench.py); with the sparse candidates, 99%. A
column shared by more works than the limit proposes no candidates (it sets no
work apart), so the cost per work stays bounded however large the corpus.
Prior similarity (the closest earlier text) is read among the same candidates.

Below ``EXACT_BELOW`` works every work is a candidate of every other: the answer
is exact and nothing is built. ``neighbours_for`` picks the cheapest way that
holds up: below ``INDEX_FROM`` works ``ExactNeighbours`` takes each work's
candidates from its exact scores against the corpus; on a larger corpus a full
build uses the index and the shared columns (``Neighbours``), and an update the
shared columns alone (``SparseNeighbours``), which cost each new work the same
whatever the corpus's size: at a million works, 0.2 ms a work against 21 ms for
exact scores, finding 99.7% of the exact lists of 1,000 works (98.3% of their
prior similarities within 0.01; bench/similarity_bench.py).
"""

from __future__ import annotations

import faiss
import numpy as np
from scipy import sparse
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize

from similarity.corpus import Corpus
from similarity.exact import score_chunks
from similarity.scoring import NEIGHBOURS, WEIGHTS

# Candidates of an update's works: room to find the lists they enter.
CANDIDATES = 120
# Candidates of each kind for a full build: nearest in the index, by rare words, by links.
INDEX_CANDIDATES = 60
WORD_CANDIDATES = 60
LINK_CANDIDATES = 60
FULL_BUILD_CANDIDATES = INDEX_CANDIDATES + WORD_CANDIDATES + LINK_CANDIDATES
# A term, topic, author or cited work shared by more works proposes no candidates.
SHARED_BY_AT_MOST = 3_000
LINK_PARTS = ("topics", "authors", "references", "citers")
DIMENSIONS = 256
SVD_SAMPLE = 50_000
# Power iterations of the randomised SVD: two gave a higher recall@5 than four
# (0.944 against 0.933 on the 20k sample of bench/similarity_bench.py), in less time.
SVD_ITERATIONS = 2
EXACT_BELOW = 2_000
# Below this many works exact scores cost less than reducing and indexing them
# (at 20k works: 18 s of CPU against 57 s, bench/similarity_bench.py).
INDEX_FROM = 20_000
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


def embed(corpus: Corpus) -> np.ndarray:
    """Dense unit vectors (works x dimensions, float32) whose inner products follow the score."""
    n = len(corpus)
    sample = np.arange(n)
    if n > SVD_SAMPLE:
        sample = np.sort(np.random.default_rng(SEED).choice(n, SVD_SAMPLE, replace=False))
    fitted = _parts(corpus, sample)
    dimensions = min(DIMENSIONS, max(fitted.shape[1] - 1, 1), max(len(sample) - 1, 1))
    vectors = np.zeros((n, dimensions), dtype=np.float32)
    if fitted.shape[1] < 2:
        return vectors
    svd = TruncatedSVD(n_components=dimensions, n_iter=SVD_ITERATIONS, random_state=SEED).fit(
        fitted
    )
    del fitted
    components = svd.components_.astype(np.float32).T
    for begin in range(0, n, BATCH):
        rows = np.arange(begin, min(begin + BATCH, n))
        vectors[rows] = _parts(corpus, rows) @ components
    return normalize(vectors, copy=False)


def _index(vectors: np.ndarray):
    index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_BUILD_WIDTH
    index.hnsw.efSearch = HNSW_SEARCH_WIDTH
    index.add(vectors)
    return index


def _rare_columns(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """``matrix`` without the columns set in more than ``SHARED_BY_AT_MOST`` rows."""
    shared_by = np.bincount(matrix.indices, minlength=matrix.shape[1])
    kept = matrix.copy()
    kept.data[shared_by[kept.indices] > SHARED_BY_AT_MOST] = 0
    kept.eliminate_zeros()
    return kept


def _best_columns(product: sparse.csr_matrix, k: int) -> np.ndarray:
    """The ``k`` highest columns of each row of ``product`` (-1 where fewer)."""
    best = np.full((product.shape[0], k), -1, dtype=np.int64)
    for i in range(product.shape[0]):
        begin, end = product.indptr[i], product.indptr[i + 1]
        columns = product.indices[begin:end]
        if len(columns) > k:
            columns = columns[np.argpartition(-product.data[begin:end], k - 1)[:k]]
        best[i, : len(columns)] = columns
    return best


def _distinct(found: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's candidates sorted, with itself and repeats as -1."""
    found[found == rows[:, None]] = -1
    found.sort(axis=1)
    repeated = np.zeros(found.shape, dtype=bool)
    repeated[:, 1:] = found[:, 1:] == found[:, :-1]
    found[repeated] = -1
    return found


class SharedColumns:
    """Candidates by the rare words and the links a work shares with others, most first.

    A column set in more than ``SHARED_BY_AT_MOST`` rows proposes nothing, so a
    work's candidates cost at most that many rows per column it has, whatever
    the corpus's size.
    """

    def __init__(self, corpus: Corpus, *, words: int, links: int):
        self.kinds = []  # (rows' rare columns, the same transposed, candidates taken)
        everyone = np.arange(len(corpus))
        for names, k in ((("text",), words), (LINK_PARTS, links)):
            rare = _rare_columns(_parts(corpus, everyone, names))
            if rare.nnz:
                self.kinds.append((rare, rare.T.tocsr(), k))

    def of(self, rows: np.ndarray) -> list[np.ndarray]:
        """For each kind, the best ``k`` candidate rows of each of ``rows`` (-1 where fewer)."""
        return [
            _best_columns((matrix[rows] @ transposed).tocsr(), k)
            for matrix, transposed, k in self.kinds
        ]


class Neighbours:
    """Candidates for any row of the corpus: nearest in the index, by rare words, by links."""

    def __init__(self, corpus: Corpus):
        self.size = len(corpus)
        self.vectors = self.index = self.shared = None
        if self.size < EXACT_BELOW:
            return
        self.vectors = embed(corpus)
        self.index = _index(self.vectors)
        self.shared = SharedColumns(corpus, words=WORD_CANDIDATES, links=LINK_CANDIDATES)

    def of(self, rows: np.ndarray) -> np.ndarray:
        """The candidate rows of each of ``rows`` (-1 where there are fewer; never itself)."""
        if self.index is None:  # small corpus: everyone
            others = np.tile(np.arange(self.size), (len(rows), 1))
            others[others == rows[:, None]] = -1
            return others
        found = [self.index.search(self.vectors[rows], INDEX_CANDIDATES)[1], *self.shared.of(rows)]
        return _distinct(np.hstack(found), rows)


class SparseNeighbours:
    """Candidates by shared rare words and links alone: for an update on a large corpus.

    No index is built and no work is compared with the whole corpus, so each
    work to place costs the same whatever the corpus's size (``SharedColumns``);
    what stays linear is building the column lists once per run.
    """

    def __init__(self, corpus: Corpus, *, k: int = CANDIDATES):
        self.shared = SharedColumns(corpus, words=k, links=k)

    def of(self, rows: np.ndarray) -> np.ndarray:
        return _distinct(np.hstack(self.shared.of(rows)), rows)


class ExactNeighbours:
    """Candidates from exact scores against the whole corpus, with no index.

    Each work costs one sparse product against the corpus: below ``INDEX_FROM``
    works that is less than reducing and indexing them, even for a full build. The
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
        return _distinct(found, rows)  # a corpus smaller than k: never itself


def neighbours_for(corpus: Corpus, rows: int):
    """The cheaper way to find candidates for ``rows`` works of ``corpus``.

    A full build needs of each work only its best matches and its closest earlier
    text, so exact candidates are those alone; an update also looks further down
    each new work's candidates (for lists it may enter), so it keeps ``CANDIDATES``.
    """
    full = rows >= len(corpus)
    if len(corpus) < INDEX_FROM:  # a full build's k: room for ties at the last place
        return ExactNeighbours(corpus, k=4 * NEIGHBOURS if full else CANDIDATES)
    return Neighbours(corpus) if full else SparseNeighbours(corpus)

""" "More like this" and prior similarity, computed over the whole corpus.

Each visible work is compared with every other one on three things, combined
into one score in [0, 1]:

- text: TF-IDF cosine over title (counted twice) and abstract;
- topics: Jaccard overlap of the works' topics;
- authors: Jaccard overlap of the works' authors;
- references: how many works both cite (bibliographic coupling), by OpenAlex
  id whether or not we hold them;
- citers: how many works held here cite both (co-citation).

The two citation counts weigh ``n / (n + CITATION_HALF)``: one shared work
counts a little, a handful nearly fully, however long the reference lists.

The five best matches (score at least ``MIN_SCORE``) are stored as
``WorkSimilarity`` rows with the reasons for each. Each work also gets its
*prior similarity*: the highest text cosine to any work published strictly
before it (a work dated only by year is earlier than another only when its
whole year is). Novelty (publications.metrics) is read from it.

Memory stays bounded however large the corpus: the vectors are sparse, and
scores are computed for ``chunk_rows`` works at a time against the corpus
(one sparse product per chunk), so no corpus-by-corpus matrix ever exists.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date

import numpy as np
from django.db import transaction
from django.db.models import Count, Min, Q
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from publications.models import (
    Author,
    Authorship,
    Citation,
    Topic,
    Work,
    WorkSimilarity,
    WorkTopic,
)
from publications.text import plain_text

logger = logging.getLogger("publications")

NEIGHBOURS = 5
WEIGHTS = {"text": 0.5, "topics": 0.2, "authors": 0.1, "references": 0.1, "citers": 0.1}
CITATION_HALF = 3.0  # shared works at which a citation component is worth half its weight
MIN_SCORE = 0.05
# A component is named as a reason when it adds at least this much to the score.
REASON_MIN_CONTRIBUTION = 0.03
# Score cells computed at once (chunk rows x corpus size): about 40 MB of float32 arrays.
CHUNK_CELLS = 2_000_000
# When a few works change, each may enter the lists of this many of its best matches.
REVERSE_CANDIDATES = 50
NAMES_IN_REASON = 3
# Past this share of the corpus, recomputing everything costs less than updating.
FULL_RUN_SHARE = 0.25


@dataclass
class Corpus:
    """Every visible work as sparse rows, in id order."""

    ids: np.ndarray
    text: sparse.csr_matrix  # works x terms, rows L2-normalised (zero rows: no text)
    topics: sparse.csr_matrix  # works x topics, 0/1
    authors: sparse.csr_matrix  # works x authors, 0/1
    topic_ids: np.ndarray
    author_ids: np.ndarray
    start: np.ndarray  # first day the work may have appeared (ordinal), -1 when undated
    end: np.ndarray  # last such day; a far-future value when undated
    has_text: np.ndarray  # the work has words to compare (its row may still be all zero)
    has_abstract: np.ndarray
    prior: np.ndarray  # stored prior similarity, NaN when unknown
    topic_names: dict[int, str] = field(default_factory=dict)
    topic_frequency: dict[int, int] = field(default_factory=dict)
    references: sparse.csr_matrix | None = None  # works x cited OpenAlex ids, 0/1
    citers: sparse.csr_matrix | None = None  # works x works held here citing them, 0/1
    _text_t: sparse.csr_matrix | None = None
    _topics_t: sparse.csr_matrix | None = None
    _authors_t: sparse.csr_matrix | None = None
    _references_t: sparse.csr_matrix | None = None
    _citers_t: sparse.csr_matrix | None = None

    def __post_init__(self) -> None:
        n = len(self.ids)
        if self.references is None:
            self.references = sparse.csr_matrix((n, 0), dtype=np.float32)
        if self.citers is None:
            self.citers = sparse.csr_matrix((n, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def rows_of(self, work_ids: Iterable[int]) -> np.ndarray:
        """Row numbers of those of ``work_ids`` that are in the corpus, in id order."""
        wanted = np.fromiter(sorted(set(work_ids)), dtype=np.int64)
        if not len(wanted) or not len(self.ids):
            return np.array([], dtype=np.int64)
        rows = np.clip(np.searchsorted(self.ids, wanted), 0, len(self.ids) - 1)
        return rows[self.ids[rows] == wanted]

    def transposed(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix, sparse.csr_matrix]:
        if self._text_t is None:
            self._text_t = self.text.T.tocsr()
            self._topics_t = self.topics.T.tocsr()
            self._authors_t = self.authors.T.tocsr()
        return self._text_t, self._topics_t, self._authors_t

    def citations_transposed(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        if self._references_t is None:
            self._references_t = self.references.T.tocsr()
            self._citers_t = self.citers.T.tocsr()
        return self._references_t, self._citers_t


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


# Loading ----------------------------------------------------------------------

_FAR_FUTURE = date.max.toordinal()


def _days(published: date | None, year: int | None) -> tuple[int, int]:
    if published:
        return published.toordinal(), published.toordinal()
    if year:
        return date(year, 1, 1).toordinal(), date(year, 12, 31).toordinal()
    return -1, _FAR_FUTURE


def _incidence(pairs: Iterable[tuple[int, int]], row_of: dict[int, int], n: int):
    rows, cols, column_ids = [], [], {}
    for work_id, other_id in pairs:
        row = row_of.get(work_id)
        if row is None:
            continue
        rows.append(row)
        cols.append(column_ids.setdefault(other_id, len(column_ids)))
    matrix = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, len(column_ids))
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix, np.array(list(column_ids), dtype=np.int64)


def _vectorise(documents: Iterator[str]) -> tuple[sparse.csr_matrix, np.ndarray] | None:
    """TF-IDF rows of the documents, and which documents have any word at all."""
    vectorizer = TfidfVectorizer(
        stop_words="english", sublinear_tf=True, dtype=np.float32, strip_accents="unicode"
    )
    try:
        matrix = vectorizer.fit_transform(documents).tocsr()
    except ValueError:  # no document has a single word left
        return None
    # A term in one document only adds to no cosine between two documents; the
    # rows were normalised with it, so dropping it now changes no score.
    has_words = matrix.getnnz(axis=1) > 0
    document_frequency = np.bincount(matrix.indices, minlength=matrix.shape[1])
    return matrix[:, np.flatnonzero(document_frequency >= 2)].tocsr(), has_words


def load_corpus() -> Corpus:
    """Read every visible work's text, dates, topics and authors (a fixed number of queries)."""
    ids: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    abstracts: list[bool] = []
    priors: list[float] = []

    def documents() -> Iterator[str]:
        rows = (
            Work.objects.visible()
            .order_by("id")
            .values_list(
                "id",
                "title",
                "abstract",
                "publication_date",
                "publication_year",
                "prior_similarity",
            )  # fmt: skip
        )
        for pk, title, abstract, published, year, prior in rows.iterator(chunk_size=2000):
            ids.append(pk)
            start, end = _days(published, year)
            starts.append(start)
            ends.append(end)
            abstracts.append(bool(abstract and abstract.strip()))
            priors.append(np.nan if prior is None else prior)
            title = plain_text(title)
            yield f"{title}\n{title}\n{plain_text(abstract)}"

    vectors = _vectorise(documents())
    n = len(ids)
    if vectors is None:
        text, has_text = sparse.csr_matrix((n, 0), dtype=np.float32), np.zeros(n, dtype=bool)
    else:
        text, has_text = vectors
    row_of = {pk: row for row, pk in enumerate(ids)}
    visible = Q(work__merged_into__isnull=True)
    topic_pairs = WorkTopic.objects.filter(visible).values_list("work_id", "topic_id")
    topics, topic_ids = _incidence(topic_pairs.iterator(chunk_size=5000), row_of, n)
    author_pairs = Authorship.objects.filter(visible).values_list("work_id", "author_id")
    authors, author_ids = _incidence(author_pairs.iterator(chunk_size=5000), row_of, n)
    frequency = np.asarray(topics.sum(axis=0)).ravel()
    references, citers = _citation_incidence(row_of, n)
    return Corpus(
        references=references,
        citers=citers,
        ids=np.array(ids, dtype=np.int64),
        text=text,
        topics=topics,
        authors=authors,
        topic_ids=topic_ids,
        author_ids=author_ids,
        start=np.array(starts, dtype=np.int64),
        end=np.array(ends, dtype=np.int64),
        has_text=has_text,
        has_abstract=np.array(abstracts, dtype=bool),
        prior=np.array(priors, dtype=np.float64),
        topic_frequency={int(t): int(f) for t, f in zip(topic_ids, frequency, strict=True)},
        topic_names=dict(Topic.objects.filter(id__in=topic_ids.tolist()).values_list("id", "name"))
        if len(topic_ids)
        else {},
    )


def _citation_incidence(row_of: dict[int, int], n: int):
    """Each work's references (by OpenAlex id) and the visible works citing it."""
    links = Citation.objects.filter(citing__merged_into__isnull=True)
    cited_ids = links.values_list("citing_id", "cited_openalex_id").order_by()
    numbered = (
        (work_id, int(cited[1:])) for work_id, cited in cited_ids.iterator(chunk_size=5000)
        if cited[1:].isdigit()
    )  # fmt: skip
    references, _ = _incidence(numbered, row_of, n)
    citing = links.filter(cited__isnull=False).values_list("cited_id", "citing_id").order_by()
    citers, _ = _incidence(citing.iterator(chunk_size=5000), row_of, n)
    return references, citers


# Scoring ----------------------------------------------------------------------


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


# Reasons ----------------------------------------------------------------------


def _names(items: list[str]) -> str:
    shown = items[:NAMES_IN_REASON]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def reasons(corpus: Corpus, row: int, match: Match, author_names: dict[int, str]) -> list[dict]:
    """Why two works match, largest contribution first, each as {kind, label}."""
    found = []
    if match.topics:
        shared = np.intersect1d(
            corpus.topics[row].indices, corpus.topics[match.similar_row].indices
        )
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
            shared = np.intersect1d(
                corpus.authors[row].indices, corpus.authors[match.similar_row].indices
            )
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
            shared = np.intersect1d(
                corpus.authors[row].indices, corpus.authors[match.similar_row].indices
            )
            wanted.update(int(corpus.author_ids[c]) for c in shared)
    if not wanted:
        return {}
    return dict(Author.objects.filter(id__in=wanted).values_list("id", "display_name"))


# Writing ----------------------------------------------------------------------


def _write_lists(corpus: Corpus, lists: dict[int, list[Match]]) -> int:
    """Replace the stored matches of the works (by row) in ``lists``."""
    pairs = [(row, match) for row, matches in lists.items() for match in matches]
    names = _author_names(corpus, pairs)
    links = [
        WorkSimilarity(
            work_id=int(corpus.ids[row]),
            similar_id=int(corpus.ids[match.similar_row]),
            score=round(match.score, 4),
            reasons=reasons(corpus, row, match, names),
        )
        for row, match in pairs
    ]
    work_ids = [int(corpus.ids[row]) for row in lists]
    with transaction.atomic():
        WorkSimilarity.objects.filter(work_id__in=work_ids).delete()
        WorkSimilarity.objects.bulk_create(links, ignore_conflicts=True)
    return len(links)


def _write_priors(corpus: Corpus, changed: dict[int, float | None]) -> None:
    works = [Work(pk=int(corpus.ids[r]), prior_similarity=value) for r, value in changed.items()]
    Work.objects.bulk_update(works, ["prior_similarity"], batch_size=1000)
    for row, value in changed.items():
        corpus.prior[row] = np.nan if value is None else value


def _prior_changes(corpus: Corpus, rows: np.ndarray, priors: np.ndarray) -> dict[int, float | None]:
    changed = {}
    for row, value in zip(rows.tolist(), priors.tolist(), strict=True):
        old = corpus.prior[row]
        if np.isnan(value) and np.isnan(old):
            continue
        if np.isnan(value) or np.isnan(old) or abs(old - value) > 1e-4:
            changed[row] = None if np.isnan(value) else float(value)
    return changed


@dataclass
class Outcome:
    works: int = 0
    links: int = 0
    lists_updated: int = 0
    priors_changed: set[int] = field(default_factory=set)  # work ids

    def __str__(self) -> str:
        return (
            f"{self.works} works compared, {self.links} matches stored, "
            f"{self.lists_updated} other lists updated, "
            f"{len(self.priors_changed)} prior similarities changed"
        )


def similarities_compute_all(*, corpus: Corpus | None = None, progress=None) -> Outcome:
    """Recompute every visible work's matches and prior similarity."""
    corpus = corpus or load_corpus()
    outcome = Outcome(works=len(corpus))
    rows = np.arange(len(corpus))
    for scores in score_chunks(corpus, rows):
        outcome.links += _store_chunk(corpus, scores, outcome)
        if progress:
            progress(int(scores.rows[-1]) + 1, len(corpus))
    # Matches with works that are no longer visible (merged away) go.
    WorkSimilarity.objects.filter(
        Q(work__merged_into__isnull=False) | Q(similar__merged_into__isnull=False)
    ).delete()
    return outcome


def similarities_update(*, work_ids: Iterable[int], corpus: Corpus | None = None) -> Outcome:
    """Recompute the matches of ``work_ids`` and of the works whose lists they change.

    The given works get fresh lists and prior similarities. A list of another
    work is recomputed when it holds one of them, or when one of them, among its
    ``REVERSE_CANDIDATES`` best matches, scores above that list's weakest entry.
    A later work's prior similarity rises when one of them resembles it more
    than anything stored so far.
    """
    corpus = corpus or load_corpus()
    targets = corpus.rows_of(work_ids)
    outcome = Outcome(works=len(targets))
    if not len(targets):
        return outcome
    target_set = set(targets.tolist())
    offers: dict[int, float] = {}  # other row -> best score a target reaches with it
    for scores in score_chunks(corpus, targets):
        outcome.links += _store_chunk(corpus, scores, outcome)
        raised = _raised_priors(corpus, scores, exclude=target_set)
        _write_priors(corpus, raised)
        outcome.priors_changed.update(int(corpus.ids[r]) for r in raised)
        for i in range(len(scores.rows)):
            for match in best_matches(scores, i, limit=REVERSE_CANDIDATES):
                if match.similar_row not in target_set:
                    offers[match.similar_row] = max(offers.get(match.similar_row, 0), match.score)
    redo = _lists_to_redo(corpus, offers, targets)
    outcome.lists_updated = len(redo)
    for scores in score_chunks(corpus, redo):
        outcome.links += _store_chunk(corpus, scores, outcome)
    return outcome


def _store_chunk(corpus: Corpus, scores: ChunkScores, outcome: Outcome) -> int:
    """Write the lists and prior similarities of a chunk's works; return matches stored."""
    lists = {int(r): best_matches(scores, i) for i, r in enumerate(scores.rows)}
    written = _write_lists(corpus, lists)
    changed = _prior_changes(corpus, scores.rows, prior_similarity(corpus, scores))
    _write_priors(corpus, changed)
    outcome.priors_changed.update(int(corpus.ids[r]) for r in changed)
    return written


def _raised_priors(corpus: Corpus, scores: ChunkScores, *, exclude: set[int]) -> dict[int, float]:
    """Later works whose closest earlier work is now one of this chunk's."""
    later = corpus.start[None, :] > corpus.end[scores.rows][:, None]
    best_from_chunk = np.where(later, scores.text, np.float32(0)).max(axis=0)
    known = (corpus.start >= 0) & corpus.has_text
    current = np.nan_to_num(corpus.prior, nan=np.inf)
    raised = np.flatnonzero(known & (best_from_chunk > current + 1e-4))
    return {int(r): round(float(best_from_chunk[r]), 4) for r in raised if int(r) not in exclude}


def _lists_to_redo(corpus: Corpus, offers: dict[int, float], targets: np.ndarray) -> np.ndarray:
    """Rows (not targets) whose stored list a target enters or leaves."""
    target_ids = [int(corpus.ids[r]) for r in targets]
    holding = WorkSimilarity.objects.filter(similar_id__in=target_ids).values_list(
        "work_id", flat=True
    )
    redo = set(corpus.rows_of(holding).tolist())
    offered_ids = [int(corpus.ids[r]) for r in offers]
    stored = {
        work_id: (count, weakest)
        for work_id, count, weakest in WorkSimilarity.objects.filter(work_id__in=offered_ids)
        .values("work_id")
        .annotate(count=Count("id"), weakest=Min("score"))
        .values_list("work_id", "count", "weakest")
    }
    for row, offered in offers.items():
        count, weakest = stored.get(int(corpus.ids[row]), (0, 0.0))
        if count < NEIGHBOURS or offered > weakest:
            redo.add(row)
    redo -= set(targets.tolist())
    return np.array(sorted(redo), dtype=np.int64)


def works_of_authors(author_ids: Iterable[int]) -> list[int]:
    """Visible works of these authors (what an import batch that touched them may change)."""
    return list(
        Work.objects.visible()
        .filter(authorships__author_id__in=list(author_ids))
        .values_list("id", flat=True)
        .distinct()
    )


def authors_of_works(work_ids: Iterable[int]) -> list[int]:
    return list(
        Authorship.objects.filter(work_id__in=list(work_ids))
        .values_list("author_id", flat=True)
        .distinct()
    )


def similarities_refresh(
    *, work_ids: Iterable[int] | None = None, author_ids: Iterable[int] | None = None
) -> Outcome:
    """Bring matches, prior similarities and Novelty up to date.

    With neither argument the whole corpus is recomputed; otherwise the given
    works and the works of the given authors (see ``similarities_update``).
    """
    from publications import metrics

    corpus = load_corpus()
    wanted = None
    if work_ids is not None or author_ids is not None:
        wanted = set(work_ids or []) | set(works_of_authors(author_ids or []))
    if wanted is None or len(wanted) > FULL_RUN_SHARE * len(corpus):
        outcome = similarities_compute_all(corpus=corpus)
    else:
        outcome = similarities_update(work_ids=wanted, corpus=corpus)
    if outcome.priors_changed:
        metrics.author_novelty_refresh(author_ids=authors_of_works(outcome.priors_changed))
    logger.info("similarities: %s", outcome)
    return outcome

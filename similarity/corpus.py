"""Every visible work as sparse rows: text, topics, authors, references, citers."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import chain

import numpy as np
from django.db.models import Q
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from catalogue.dates import PartialDate
from catalogue.models import Authorship, Citation, Topic, Work, WorkTopic
from catalogue.text import plain_text


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
    read_at: float = 0.0  # when reading began (a time.time()): later changes are not in it
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


_FAR_FUTURE = date.max.toordinal()


def _days(published: date | None, year: int | None, precision: str) -> tuple[int, int]:
    """The first and last day the work may have appeared: its day, month or year."""
    found = PartialDate.of(published, None if published else year, precision)
    if found is None:
        return -1, _FAR_FUTURE
    first, last = found.span()
    return first.toordinal(), last.toordinal()


def _incidence(pairs: Iterable[tuple[int, int]], ids: np.ndarray):
    """A 0/1 works x others matrix from (work id, other id) pairs, and each column's id.

    ``ids``: the corpus's work ids, sorted (row order); pairs of other works are
    left out. Columns are in id order.
    """
    flat = np.fromiter(chain.from_iterable(pairs), dtype=np.int64)
    work_ids, other_ids = flat[0::2], flat[1::2]
    rows = np.clip(np.searchsorted(ids, work_ids), 0, max(len(ids) - 1, 0))
    kept = ids[rows] == work_ids if len(ids) else np.zeros(len(work_ids), dtype=bool)
    column_ids, cols = np.unique(other_ids[kept], return_inverse=True)
    matrix = sparse.csr_matrix(
        (np.ones(len(cols), dtype=np.float32), (rows[kept], cols.ravel())),
        shape=(len(ids), len(column_ids)),
    )
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix, column_ids


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


@dataclass
class _WorkFacts:
    """What is read beside each work's text, in id order."""

    ids: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    abstracts: list[bool] = field(default_factory=list)
    priors: list[float] = field(default_factory=list)

    def documents(self) -> Iterator[str]:
        """Each visible work's text (title twice, then abstract), noting its facts as it goes."""
        rows = (
            Work.objects.visible()
            .order_by("id")
            .values_list(
                "id",
                "title",
                "abstract",
                "publication_date",
                "publication_year",
                "publication_date_precision",
                "prior_similarity",
            )
        )
        for pk, title, abstract, published, year, precision, prior in rows.iterator(
            chunk_size=2000
        ):
            self.ids.append(pk)
            start, end = _days(published, year, precision)
            self.starts.append(start)
            self.ends.append(end)
            self.abstracts.append(bool(abstract and abstract.strip()))
            self.priors.append(np.nan if prior is None else prior)
            title = plain_text(title)
            yield f"{title}\n{title}\n{plain_text(abstract)}"


def load_corpus() -> Corpus:
    """Read every visible work's text, dates, topics and authors (a fixed number of queries)."""
    read_at = time.time()
    facts = _WorkFacts()
    vectors = _vectorise(facts.documents())
    n = len(facts.ids)
    if vectors is None:
        text, has_text = sparse.csr_matrix((n, 0), dtype=np.float32), np.zeros(n, dtype=bool)
    else:
        text, has_text = vectors
    ids = np.array(facts.ids, dtype=np.int64)
    visible = Q(work__merged_into__isnull=True)
    topic_pairs = WorkTopic.objects.filter(visible).values_list("work_id", "topic_id")
    topics, topic_ids = _incidence(topic_pairs.iterator(chunk_size=5000), ids)
    author_pairs = Authorship.objects.of_visible_works().values_list("work_id", "author_id")
    authors, author_ids = _incidence(author_pairs.iterator(chunk_size=5000), ids)
    frequency = np.asarray(topics.sum(axis=0)).ravel()
    references, citers = _citation_incidence(ids)
    return Corpus(
        read_at=read_at,
        references=references,
        citers=citers,
        ids=ids,
        text=text,
        topics=topics,
        authors=authors,
        topic_ids=topic_ids,
        author_ids=author_ids,
        start=np.array(facts.starts, dtype=np.int64),
        end=np.array(facts.ends, dtype=np.int64),
        has_text=has_text,
        has_abstract=np.array(facts.abstracts, dtype=bool),
        prior=np.array(facts.priors, dtype=np.float64),
        topic_frequency={int(t): int(f) for t, f in zip(topic_ids, frequency, strict=True)},
        topic_names=_topic_names(topic_ids),
    )


def _topic_names(topic_ids: np.ndarray) -> dict[int, str]:
    if not len(topic_ids):
        return {}
    return dict(Topic.objects.filter(id__in=topic_ids.tolist()).values_list("id", "name"))


def _citation_incidence(ids: np.ndarray):
    """Each work's references (by OpenAlex id) and the visible works citing it."""
    links = Citation.objects.filter(citing__merged_into__isnull=True)
    cited_ids = links.values_list("citing_id", "cited_openalex_id").order_by()
    numbered = (
        (work_id, int(cited[1:]))
        for work_id, cited in cited_ids.iterator(chunk_size=5000)
        if cited[1:].isdigit()
    )
    references, _ = _incidence(numbered, ids)
    citing = links.filter(cited__isnull=False).values_list("cited_id", "citing_id").order_by()
    citers, _ = _incidence(citing.iterator(chunk_size=5000), ids)
    return references, citers

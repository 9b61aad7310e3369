"""The approximate lists find what comparing every pair finds, on a generated corpus.

The corpus is built in memory (no database): works drawn from research themes,
each with the theme's vocabulary, topics and a team from the theme's people,
so near neighbours are many and close, as in a real field.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import sparse

from similarity import candidates, exact, neighbours
from similarity.corpus import Corpus, _incidence, _vectorise

THEMES = 40
WORKS = 3000


def generated_corpus(works: int = WORKS, seed: int = 3) -> Corpus:
    rng = random.Random(seed)
    vocabulary = [f"w{n}x" for n in range(4000)]
    themes = [
        (rng.sample(vocabulary, 60), rng.sample(range(200), 3), rng.sample(range(2000), 25))
        for _ in range(THEMES)
    ]
    documents, topic_pairs, author_pairs = [], [], []
    for row in range(works):
        words, topics, people = themes[rng.randrange(THEMES)]
        text = rng.choices(words, k=12) + rng.choices(vocabulary, k=4)
        documents.append(" ".join(text))
        topic_pairs += [(row, t) for t in rng.sample(topics, rng.randint(1, 3))]
        author_pairs += [(row, a) for a in rng.sample(people, rng.randint(1, 4))]
    text, has_text = _vectorise(iter(documents))
    topics, topic_ids = _incidence(topic_pairs, np.arange(works))
    authors, author_ids = _incidence(author_pairs, np.arange(works))
    days = np.array([700_000 + rng.randrange(5000) for _ in range(works)], dtype=np.int64)
    return Corpus(
        ids=np.arange(1, works + 1, dtype=np.int64),
        text=text,
        topics=topics,
        authors=authors,
        topic_ids=topic_ids,
        author_ids=author_ids,
        start=days,
        end=days,
        has_text=has_text,
        has_abstract=np.ones(works, dtype=bool),
        prior=np.full(works, np.nan),
    )


def exact_answer(corpus: Corpus):
    lists, priors = {}, {}
    for scores in exact.score_chunks(corpus, np.arange(len(corpus))):
        for i, row in enumerate(scores.rows.tolist()):
            lists[row] = [(m.similar_row, round(m.score, 5)) for m in exact.best_matches(scores, i)]
        priors.update(
            zip(scores.rows.tolist(), exact.prior_similarity(corpus, scores), strict=True)
        )
    return lists, priors


def approximate_answer(corpus: Corpus):
    found = neighbours.Neighbours(corpus)
    lists, priors = {}, {}
    for scores in candidates.score_candidates(corpus, np.arange(len(corpus)), found):
        for i, row in enumerate(scores.rows.tolist()):
            lists[row] = [
                (m.similar_row, round(m.score, 5)) for m in candidates.best_among(scores, i)
            ]
        priors.update(
            zip(scores.rows.tolist(), candidates.prior_among(corpus, scores), strict=True)
        )
    return lists, priors


def test_the_index_finds_at_least_nine_in_ten_of_the_exact_matches(monkeypatch):
    monkeypatch.setattr(neighbours, "EXACT_BELOW", 0)  # use the index at this size
    corpus = generated_corpus()
    (wanted, prior), (found, found_prior) = exact_answer(corpus), approximate_answer(corpus)
    hits = sum(len(set(found[row]) & set(matches)) for row, matches in wanted.items())
    assert hits / sum(len(m) for m in wanted.values()) >= 0.9
    # A candidate is scored exactly: a match found by both has the same score.
    for row, matches in found.items():
        exact_scores = dict(wanted[row])
        for other, score in matches:
            assert exact_scores.get(other, score) == pytest.approx(score, abs=1e-4)
    close = np.mean([abs(prior[r] - found_prior[r]) <= 0.01 for r in prior])
    assert close >= 0.9


def test_below_the_threshold_every_pair_is_compared():
    corpus = generated_corpus(works=400)
    (wanted, prior), (found, found_prior) = exact_answer(corpus), approximate_answer(corpus)
    assert found == wanted
    assert np.allclose(list(found_prior.values()), list(prior.values()), equal_nan=True)


def test_exact_candidates_give_the_exact_lists_and_priors(monkeypatch):
    monkeypatch.setattr(neighbours, "EXACT_BELOW", 0)  # a corpus that would be indexed
    corpus = generated_corpus(works=600)
    wanted, prior = exact_answer(corpus)
    rows = np.arange(0, len(corpus), 7)
    found = neighbours.neighbours_for(corpus, len(rows))
    assert isinstance(found, neighbours.ExactNeighbours)
    for scores in candidates.score_candidates(corpus, rows, found):
        priors = candidates.prior_among(corpus, scores)
        for i, row in enumerate(scores.rows.tolist()):
            got = [(m.similar_row, round(m.score, 5)) for m in candidates.best_among(scores, i)]
            assert got == wanted[row]
            assert np.allclose(priors[i], prior[row], equal_nan=True)


def test_rare_words_and_links_find_the_matches_the_index_misses(monkeypatch):
    monkeypatch.setattr(neighbours, "EXACT_BELOW", 0)
    monkeypatch.setattr(neighbours, "INDEX_CANDIDATES", 1)  # the index alone finds little
    corpus = generated_corpus()
    (wanted, _), (found, _) = exact_answer(corpus), approximate_answer(corpus)
    hits = sum(len(set(found[row]) & set(matches)) for row, matches in wanted.items())
    assert hits / sum(len(m) for m in wanted.values()) >= 0.9


def test_a_column_shared_by_too_many_works_proposes_no_candidates(monkeypatch):
    monkeypatch.setattr(neighbours, "SHARED_BY_AT_MOST", 2)
    matrix = sparse.csr_matrix(
        np.array([[1, 1, 0], [1, 0, 1], [1, 1, 0], [0, 0, 1]], dtype=np.float32)
    )
    rare = neighbours._rare_columns(matrix).toarray()
    assert rare.tolist() == [[0, 1, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]]
    best = neighbours._best_columns(sparse.csr_matrix(rare @ rare.T), 2)
    assert sorted(best[0].tolist()) == [0, 2]  # what row 0 shares a rare column with


def test_an_update_on_a_large_corpus_finds_the_exact_matches_from_shared_columns(monkeypatch):
    monkeypatch.setattr(neighbours, "INDEX_FROM", 1000)  # this corpus counts as large
    corpus = generated_corpus()
    wanted, _ = exact_answer(corpus)
    rows = np.arange(0, len(corpus), 11)  # the works of an update
    found = neighbours.neighbours_for(corpus, len(rows))
    assert isinstance(found, neighbours.SparseNeighbours)
    assert found.of(rows).shape[1] <= 2 * neighbours.CANDIDATES  # never the whole corpus
    hits = total = 0
    for scores in candidates.score_candidates(corpus, rows, found):
        for i, row in enumerate(scores.rows.tolist()):
            got = {m.similar_row for m in candidates.best_among(scores, i)}
            expected = {other for other, _ in wanted[row]}
            hits, total = hits + len(got & expected), total + len(expected)
    assert hits / total >= 0.95

"""Bring "More like this", prior similarity and Novelty up to date."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace

import numpy as np
from django.db.models import Q

from catalogue.models import Authorship, Work, WorkSimilarity
from similarity.backlog import backlog_covered, backlog_done, backlog_take
from similarity.candidates import (
    CandidateScores,
    best_among,
    prior_among,
    raised_among,
    score_candidates,
)
from similarity.corpus import Corpus, load_corpus
from similarity.exact import (
    ChunkScores,
    best_matches,
    prior_similarity,
    score_chunks,
)
from similarity.neighbours import CANDIDATES, INDEX_FROM, neighbours_for
from similarity.scoring import NEIGHBOURS, Match
from similarity.storing import (
    Link,
    Outcome,
    _links,
    _prior_changes,
    _replace_links,
    _write_lists,
    _write_priors,
    analyse_lists,
)

logger = logging.getLogger("publications")

# Past this share of the corpus, recomputing everything costs less than updating.
FULL_RUN_SHARE = 0.25
# Stored lists read and written at once when new works enter them.
MERGE_ROWS = 2_000


def similarities_compute_all(*, corpus: Corpus | None = None, progress=None) -> Outcome:
    """Recompute every visible work's matches and prior similarity.

    Each work is scored exactly against its candidates: on a large corpus its
    nearest works in an approximate nearest-neighbour index and those it shares
    the most rare words and links with, not every work (``neighbours``).
    """
    corpus = corpus or load_corpus()
    outcome = Outcome(works=len(corpus))
    exact = len(corpus) < INDEX_FROM  # every pair costs less than an index here
    if exact:
        chunks = score_chunks(corpus, np.arange(len(corpus)))
    else:
        neighbours = neighbours_for(corpus, len(corpus))
        chunks = score_candidates(corpus, np.arange(len(corpus)), neighbours)
    for scores in chunks:
        outcome.links += _store_chunk(corpus, scores, outcome, exact=exact)
        if progress:
            progress(int(scores.rows[-1]) + 1, len(corpus))
    # Matches with works that are no longer visible (merged away) go.
    WorkSimilarity.objects.filter(
        Q(work__merged_into__isnull=False) | Q(similar__merged_into__isnull=False)
    ).delete()
    analyse_lists()
    if corpus.read_at:
        backlog_covered(corpus.read_at)  # every change asked for before the reading is in
    return outcome


def similarities_update(*, work_ids: Iterable[int], corpus: Corpus | None = None) -> Outcome:
    """Recompute the matches of ``work_ids`` and of the works whose lists they change.

    The given works get fresh lists and prior similarities, from their scores
    against the corpus. Another work's list changes in two ways. When it holds
    one of them, that work may have changed and the list is recomputed from its
    candidates. When one of them scores above that list's weakest entry (among
    the given work's candidates), it enters: the list is merged from what is
    stored and the new scores, with no search of the corpus, so the cost of an
    update follows the number of given works, not the corpus's size. A later
    candidate's prior similarity rises when one of them resembles it more than
    anything stored so far.
    """
    corpus = corpus or load_corpus()
    targets = corpus.rows_of(work_ids)
    outcome = Outcome(works=len(targets))
    if not len(targets):
        return outcome
    target_set = set(targets.tolist())
    neighbours = neighbours_for(corpus, len(targets))
    offers: dict[int, list[Match]] = {}  # other row -> matches with targets, from its side
    for scores in score_candidates(corpus, targets, neighbours):
        outcome.links += _store_chunk(corpus, scores, outcome)
        raised = raised_among(corpus, scores, exclude=target_set)
        _write_priors(corpus, raised)
        outcome.priors_changed.update(int(corpus.ids[r]) for r in raised)
        for i, row in enumerate(scores.rows.tolist()):
            for match in best_among(scores, i, limit=CANDIDATES):
                if match.similar_row not in target_set:
                    offers.setdefault(match.similar_row, []).append(
                        replace(match, similar_row=row)  # every part of the score is symmetric
                    )
    holding = _lists_holding(corpus, targets)
    for scores in score_candidates(corpus, holding, neighbours):
        outcome.links += _store_chunk(corpus, scores, outcome)
    searched = set(holding.tolist())
    merged = _merge_offers(corpus, {r: m for r, m in offers.items() if r not in searched})
    outcome.links += merged.links
    outcome.lists_updated = len(holding) + merged.lists_updated
    return outcome


def _store_chunk(
    corpus: Corpus, scores: CandidateScores | ChunkScores, outcome: Outcome, *, exact=False
) -> int:
    """Write the lists and prior similarities of a chunk's works; return matches stored.

    ``exact``: ``scores`` are against every work (a corpus below INDEX_FROM), not
    against each work's candidates.
    """
    best, prior = (best_matches, prior_similarity) if exact else (best_among, prior_among)
    lists = {int(r): best(scores, i) for i, r in enumerate(scores.rows)}
    written = _write_lists(corpus, lists)
    changed = _prior_changes(corpus, scores.rows, prior(corpus, scores))
    _write_priors(corpus, changed)
    outcome.priors_changed.update(int(corpus.ids[r]) for r in changed)
    return written


def _lists_holding(corpus: Corpus, targets: np.ndarray) -> np.ndarray:
    """Rows (not targets) whose stored list holds one of the targets."""
    target_ids = [int(corpus.ids[r]) for r in targets]
    holding = WorkSimilarity.objects.filter(similar_id__in=target_ids).values_list(
        "work_id", flat=True
    )
    rows = set(corpus.rows_of(holding).tolist()) - set(targets.tolist())
    return np.array(sorted(rows), dtype=np.int64)


def _merge_offers(corpus: Corpus, offers: dict[int, list[Match]]) -> Outcome:
    """Let the offered matches into the stored lists of the rows they beat.

    Each list becomes the ``NEIGHBOURS`` best of its stored entries and the
    offers, ties by row as in a full build. Entries that stay keep their stored
    score and reasons; a list no offer enters is not written. Lists are read and
    written ``MERGE_ROWS`` at a time.
    """
    outcome = Outcome()
    rows = sorted(offers)
    for begin in range(0, len(rows), MERGE_ROWS):
        chunk = rows[begin : begin + MERGE_ROWS]
        stored = _stored_lists(corpus, chunk)
        changed: list[int] = []
        kept: list[Link] = []
        entering: list[tuple[int, Match]] = []
        for row in chunk:
            entries = stored[row] + [(round(m.score, 4), m.similar_row, m) for m in offers[row]]
            best = [item for *_, item in sorted(entries, key=lambda e: (-e[0], e[1]))[:NEIGHBOURS]]
            new = [item for item in best if isinstance(item, Match)]
            if new:
                changed.append(int(corpus.ids[row]))
                kept += [item for item in best if not isinstance(item, Match)]
                entering += [(row, match) for match in new]
        if changed:
            outcome.links += _replace_links(changed, kept + _links(corpus, entering))
            outcome.lists_updated += len(changed)
    return outcome


def _stored_lists(corpus: Corpus, rows: list[int]) -> dict[int, list[tuple[float, int, Link]]]:
    """Each row's stored (score, similar row, link), leaving out works no longer visible."""
    ids = corpus.ids
    row_of = {int(ids[row]): row for row in rows}
    stored: dict[int, list[tuple[float, int, Link]]] = {row: [] for row in rows}
    links = list(
        WorkSimilarity.objects.filter(work_id__in=list(row_of)).values_list(
            "work_id", "similar_id", "score", "reasons"
        )
    )
    similar_ids = np.array([link[1] for link in links], dtype=np.int64)
    similar_rows = np.clip(np.searchsorted(ids, similar_ids), 0, max(len(ids) - 1, 0))
    visible = ids[similar_rows] == similar_ids
    for link, similar, shown in zip(links, similar_rows.tolist(), visible.tolist(), strict=True):
        if shown:
            stored[row_of[link[0]]].append((link[2], similar, link))
    return stored


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
    *,
    work_ids: Iterable[int] | None = None,
    author_ids: Iterable[int] | None = None,
) -> Outcome:
    """Bring matches, prior similarities and Novelty up to date.

    With neither argument the whole corpus is recomputed; otherwise the given
    works and the works of the given authors (see ``similarities_update``).
    Imports ask through the backlog (``similarities_catch_up``): a full build
    clears what was asked before it read the corpus, so no later run repeats it.
    """
    from catalogue import novelty

    corpus = load_corpus()
    wanted = None
    if work_ids is not None or author_ids is not None:
        wanted = set(work_ids or []) | set(works_of_authors(author_ids or []))
    if wanted is None or len(wanted) > FULL_RUN_SHARE * len(corpus):
        outcome = similarities_compute_all(corpus=corpus)
    else:
        outcome = similarities_update(work_ids=wanted, corpus=corpus)
    if outcome.priors_changed:
        novelty.author_novelty_refresh(author_ids=authors_of_works(outcome.priors_changed))
    logger.info("similarities: %s", outcome)
    return outcome


def similarities_catch_up() -> Outcome:
    """Bring up to date, in one refresh, everything asked for so far (``similarity_backlog``)."""
    taken = backlog_take()
    if taken is None:
        return Outcome(works=0)
    outcome = similarities_refresh(work_ids=taken.work_ids, author_ids=taken.author_ids)
    backlog_done(taken)
    return outcome

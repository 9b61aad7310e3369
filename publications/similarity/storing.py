"""Writing matches and prior similarities."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import transaction

from publications.models import Work, WorkSimilarity
from publications.similarity.corpus import Corpus
from publications.similarity.scoring import Match, _author_names, reasons


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

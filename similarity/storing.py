"""Writing matches and prior similarities.

On PostgreSQL a chunk's matches go in with one COPY (into a temporary table,
then one INSERT that skips pairs a concurrent run stored first) and its prior
similarities with one UPDATE joined to arrays; elsewhere through the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db import connection, transaction

from catalogue.fields import json_bytes
from catalogue.models import Work, WorkSimilarity
from catalogue.planner import analyse
from similarity.corpus import Corpus
from similarity.scoring import Match, _author_names, reasons
from similarity.signals import similarities_stored

_INCOMING = "similarity_incoming"


Link = tuple[int, int, float, list[dict]]  # work id, similar id, score, reasons


def _links(corpus: Corpus, pairs: list[tuple[int, Match]]) -> list[Link]:
    """What is stored for each (row, match): ids, rounded score and reasons."""
    names = _author_names(corpus, pairs)
    ids = corpus.ids
    return [
        (
            int(ids[row]),
            int(ids[match.similar_row]),
            round(match.score, 4),
            reasons(corpus, row, match, names),
        )
        for row, match in pairs
    ]


def _write_lists(corpus: Corpus, lists: dict[int, list[Match]]) -> int:
    """Replace the stored matches of the works (by row) in ``lists``."""
    pairs = [(row, match) for row, matches in lists.items() for match in matches]
    return _replace_links([int(corpus.ids[row]) for row in lists], _links(corpus, pairs))


def _replace_links(work_ids: list[int], links: list[Link]) -> int:
    """Store ``links`` as the whole lists of ``work_ids``; return how many.

    Their pages show the lists ("More like this"): kept copies are renewed.
    """
    with transaction.atomic():
        similarities_stored.send(sender=WorkSimilarity, work_ids=list(work_ids))
        WorkSimilarity.objects.filter(work_id__in=work_ids).delete()
        if connection.vendor == "postgresql":
            _copy_links(links)
        else:
            rows = [
                WorkSimilarity(work_id=w, similar_id=s, score=v, reasons=r) for w, s, v, r in links
            ]
            WorkSimilarity.objects.bulk_create(rows, ignore_conflicts=True)
    return len(links)


def _copy_links(links: list[Link]) -> None:
    """Insert (work id, similar id, score, reasons) rows; a pair already stored is skipped."""
    table = WorkSimilarity._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_INCOMING} (work_id bigint, similar_id bigint,"
            " score double precision, reasons jsonb)"
        )
        with cursor.copy(f"COPY {_INCOMING} FROM STDIN") as copy:
            for work_id, similar_id, score, why in links:
                copy.write_row((work_id, similar_id, score, json_bytes(why).decode()))
        insert = f"""
            INSERT INTO {table} (work_id, similar_id, score, reasons, computed_at)
            SELECT work_id, similar_id, score, reasons, now() FROM {_INCOMING}
            ON CONFLICT DO NOTHING
        """  # noqa: S608 - the model's own table, values from the copy
        cursor.execute(insert)
        cursor.execute(f"DROP TABLE {_INCOMING}")


def analyse_lists() -> None:
    """Give the planner the statistics of the lists a full build has just written.

    Without them an update plans its reads of a few thousand lists for a million
    rows (whole-table reads and JIT compilation, about half a second a query at
    a million works).
    """
    analyse({WorkSimilarity: ["work", "similar"]})


def _write_priors(corpus: Corpus, changed: dict[int, float | None]) -> None:
    if connection.vendor == "postgresql" and changed:
        column = Work._meta.get_field("prior_similarity").column
        with connection.cursor() as cursor:
            update = f"""
                UPDATE {Work._meta.db_table} AS work SET {column} = given.value
                FROM unnest(%s::bigint[], %s::double precision[]) AS given(id, value)
                WHERE work.id = given.id
            """  # noqa: S608 - the model's table and column, values as parameters
            ids = [int(corpus.ids[r]) for r in changed]
            cursor.execute(update, [ids, list(changed.values())])
    else:
        works = [Work(pk=int(corpus.ids[r]), prior_similarity=v) for r, v in changed.items()]
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

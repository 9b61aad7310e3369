"""Naming the works that held works cite but this site does not hold.

A reference is kept by the cited work's OpenAlex id (``Citation``); while we do
not hold that work, a page could show only the id. After a run ends, the cited
ids of the works it wrote that no preview names yet (or whose preview is older
than ``MAX_AGE``) are asked from OpenAlex, ``BATCH`` ids to a request and one
Celery task to a batch, with the OpenAlex client imports use (its politeness,
retries and errors). Only the title, year and first author are asked for
(``SELECT``), each cleaned and bounded as every imported text is, and kept as a
``ReferencePreview``.

A look-up is a courtesy, as that of institutions is: an answer that fails or
cannot be read stores nothing (the id stays shown as it is, and the next run
citing it asks again); an id the answer does not name is kept with empty values,
so it is not asked for again before ``MAX_AGE``. Local ids (the demo's and the
generated corpus's) are never sent. Look-ups are off wherever institution
look-ups are (``INSTITUTION_LOOKUP``: tests, the demo, benchmarks) or when
``REFERENCE_PREVIEWS`` is false.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

import pyalex
from django.conf import settings
from django.dispatch import Signal, receiver
from django.utils import timezone

from catalogue.identifiers import normalize_openalex_id, openalex_is_local
from catalogue.models import Citation, ImportRun, ReferencePreview
from catalogue.signals import import_run_ended
from catalogue.text import NAME_MAX, TITLE_MAX
from ingestion.importing.sending import task_send
from ingestion.records import SourceError
from ingestion.sources.openalex import fetching
from ingestion.sources.openalex.values import as_dict, as_int, as_line, as_list, short_id
from ingestion.sources.shapes import YEAR_MAX

logger = logging.getLogger(__name__)

TASK = "ingestion.tasks.reference_previews_fetch"
BATCH = 50  # ids ORed in one filter; OpenAlex accepts up to 100
PER_RUN = 5_000  # ids asked for after one run at most; a later run citing the rest asks again
MAX_AGE = timedelta(days=90)  # a preview older than this is asked for again
SELECT = ["id", "display_name", "publication_year", "authorships"]

# kwargs: work_ids: list[int], the held works whose references were just named.
# pages.receivers renews their pages.
reference_previews_stored = Signal()


def previews_enabled() -> bool:
    return bool(
        getattr(settings, "INSTITUTION_LOOKUP", True)
        and getattr(settings, "REFERENCE_PREVIEWS", True)
    )


def askable(values: Iterable[object]) -> list[str]:
    """The OpenAlex work ids among ``values``, once each, local ids left out."""
    found = []
    for value in values:
        short = normalize_openalex_id(value) if isinstance(value, str) else None
        if short and short[0] == "W" and not openalex_is_local(short):
            found.append(short)
    return list(dict.fromkeys(found))


def references_unnamed(run: ImportRun, limit: int = PER_RUN) -> list[str]:
    """Cited ids of the works ``run`` wrote that no held work and no recent preview answer."""
    recent = ReferencePreview.objects.filter(fetched_at__gte=timezone.now() - MAX_AGE)
    rows = (
        Citation.objects.filter(citing__source_records__import_run=run, cited__isnull=True)
        .exclude(cited_openalex_id__in=recent.values("openalex_id"))
        .values_list("cited_openalex_id", flat=True)
        .order_by("cited_openalex_id")
        .distinct()
    )
    return askable(rows[: limit * 2])[:limit]  # room for local ids, which are not asked


@receiver(import_run_ended, dispatch_uid="ingestion.reference_previews")
def previews_after_run(sender, run_id: int, **kwargs) -> None:
    """A run ended: name the works its works cite that are not held, a batch to a task."""
    if not previews_enabled():
        return
    run = ImportRun.objects.filter(pk=run_id).first()
    ids = references_unnamed(run) if run is not None else []
    for start in range(0, len(ids), BATCH):
        task_send(TASK, ids[start : start + BATCH])


def previews_fetch(*, openalex_ids: list) -> int:
    """Ask OpenAlex for one batch of cited works and keep what it says; return how many it named.

    Never raises for what OpenAlex answers: a failure is logged and stores nothing.
    """
    ids = askable(openalex_ids if isinstance(openalex_ids, list) else [])[:BATCH]
    if not ids or not previews_enabled():
        return 0
    try:
        payloads = fetch_previews(ids)
    except (SourceError, TypeError, AttributeError) as exc:  # pyalex on a malformed answer
        logger.warning("Previews of %s cited works could not be fetched: %s", len(ids), exc)
        return 0
    return previews_store(ids, payloads)


def fetch_previews(ids: list[str]) -> list[dict]:
    """The OpenAlex records of ``ids`` (one request, only the ``SELECT`` fields)."""
    fetching.configure()
    what = f"{len(ids)} cited works"
    results = fetching.openalex_call(  # the client's own errors: one SourceError for any failure
        what,
        lambda: pyalex.Works().filter_or(openalex=list(ids)).select(SELECT).get(per_page=len(ids)),
    )
    return [dict(item) for item in results if isinstance(item, dict)]


def preview_values(payload: object) -> tuple[str, dict] | None:
    """``(openalex_id, values)`` of one answered record, or None when it names no work."""
    payload = as_dict(payload)
    openalex_id = short_id(payload.get("id"), "W")
    if openalex_id is None:
        return None
    year = as_int(payload.get("publication_year"))
    values = {
        "title": as_line(payload.get("display_name"), TITLE_MAX),
        "year": year if year and year <= YEAR_MAX else None,
        "first_author": first_author(payload.get("authorships")),
    }
    return openalex_id, values


def first_author(authorships: object) -> str:
    """The name of the byline's first author: the one marked first, else the first listed."""
    entries = [as_dict(a) for a in as_list(authorships)]
    first = next((a for a in entries if a.get("author_position") == "first"), None)
    for entry in [first, *entries] if first else entries:
        author = as_dict(entry.get("author"))
        name = as_line(author.get("display_name"), NAME_MAX) or as_line(
            entry.get("raw_author_name"), NAME_MAX
        )
        if name:
            return name
    return ""


def previews_store(ids: list[str], payloads: Iterable[object]) -> int:
    """Keep the previews of ``ids`` from the answered ``payloads``; other records are ignored."""
    asked, now = set(ids), timezone.now()
    named: dict[str, dict] = {}
    for payload in payloads:
        found = preview_values(payload)
        if found and found[0] in asked and found[0] not in named:
            named[found[0]] = found[1]
    rows = [ReferencePreview(openalex_id=i, fetched_at=now, **v) for i, v in named.items()]
    if rows:
        ReferencePreview.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["openalex_id"],
            update_fields=["title", "year", "first_author", "fetched_at"],
        )
    unnamed = [ReferencePreview(openalex_id=i, fetched_at=now) for i in ids if i not in named]
    if unnamed:  # asked and not answered: a row saying so; what an earlier answer named stays
        ReferencePreview.objects.bulk_create(
            unnamed,
            update_conflicts=True,
            unique_fields=["openalex_id"],
            update_fields=["fetched_at"],
        )
    if named:
        citing = Citation.objects.filter(cited_openalex_id__in=list(named), cited__isnull=True)
        work_ids = sorted(set(citing.values_list("citing_id", flat=True)))
        reference_previews_stored.send_robust(sender=ReferencePreview, work_ids=work_ids)
    return len(named)

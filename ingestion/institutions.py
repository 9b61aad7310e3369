"""Filling what institutions lack from OpenAlex institution records.

Authorships name an institution by id, name and usually ROR, but never its
homepage, so the institutional-email evidence of a claim would have no domain
to match. After a run, the institutions it saw that still lack a homepage or a
ROR id are looked up in OpenAlex in batches (one request per ``BATCH`` of them)
and filled from the records, as an institution record in a recorded file fills
them. A look-up is a courtesy: when OpenAlex cannot be reached the run is not
failed, and the next run that sees the institution asks again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import requests
from django.conf import settings
from django.db.models import Q

from catalogue.models import AuthorInstitution, Authorship, ImportRun, Institution
from ingestion.ingest.author_records import ingest_institutions
from ingestion.records import MappingError
from ingestion.sources.openalex import entities as openalex

logger = logging.getLogger(__name__)

URL = "https://api.openalex.org/institutions"
BATCH = 50  # ids ORed in one filter; OpenAlex accepts up to 100
TIMEOUT_SECONDS = 30
_LACKING = Q(homepage_domain="") | Q(ror__isnull=True) | Q(ror="")


def institutions_seen(run: ImportRun) -> list[str]:
    """OpenAlex ids of the institutions ``run`` linked that lack a homepage domain or a ROR."""
    on_works = Authorship.institutions.through.objects.filter(
        authorship__work__source_records__import_run=run
    ).values("institution_id")
    on_authors = AuthorInstitution.objects.filter(author__source_records__import_run=run).values(
        "institution_id"
    )
    rows = Institution.objects.filter(Q(pk__in=on_works) | Q(pk__in=on_authors))
    rows = rows.filter(_LACKING, openalex_id__isnull=False).exclude(openalex_id="")
    return sorted(rows.values_list("openalex_id", flat=True).distinct())


def institutions_look_up(*, run: ImportRun) -> int:
    """Fill the institutions ``run`` saw from OpenAlex; return how many records came back."""
    if not getattr(settings, "INSTITUTION_LOOKUP", True):
        return 0
    ids = institutions_seen(run)
    found = 0
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        try:
            payloads = fetch_institutions(batch)
        except (requests.RequestException, ValueError) as exc:
            logger.warning("Run %s: institutions could not be looked up: %s", run.pk, exc)
            return found
        found += institutions_fill(payloads)
    return found


def fetch_institutions(ids: list[str]) -> list[dict]:
    """The OpenAlex records of ``ids`` (one request); raise when OpenAlex does not answer."""
    params = {"filter": f"openalex_id:{'|'.join(ids)}", "per-page": str(len(ids))}
    if email := getattr(settings, "OPENALEX_EMAIL", ""):
        params["mailto"] = email
    if key := getattr(settings, "OPENALEX_API_KEY", ""):
        params["api_key"] = key
    response = requests.get(URL, params=params, timeout=TIMEOUT_SECONDS)
    response.raise_for_status()
    results = response.json().get("results")
    return [item for item in results if isinstance(item, dict)] if isinstance(results, list) else []


def institutions_fill(payloads: Iterable[dict]) -> int:
    """Write institution records as an import does; records that cannot be read are skipped."""
    mapped = []
    for payload in payloads:
        try:
            mapped.append((payload, openalex.map_institution(payload)))
        except MappingError as exc:
            logger.warning("An OpenAlex institution record was skipped: %s", exc)
    return ingest_institutions(mapped).updated if mapped else 0

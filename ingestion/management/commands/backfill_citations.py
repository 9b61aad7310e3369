"""Write the citation links of OpenAlex records stored before links were kept.

An import skips a record whose payload has not changed, so records stored
before ``referenced_works`` was read get their links from here: each stored
OpenAlex work payload's list goes through the same writer as an import, a
batch at a time, and the authors whose works gained citations are recomputed.
Running it again changes nothing.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from catalogue import metrics
from catalogue.models import Authorship, Source, SourceRecord
from ingestion.ingest.citations import write_citations
from ingestion.records import WorkRecord
from ingestion.sources.openalex.mapping import referenced_works

BATCH = 1000


class Command(BaseCommand):
    help = "Write citation links from the OpenAlex work payloads already stored."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=BATCH, help="records per transaction")

    def handle(self, *args, batch: int, **options):
        records = SourceRecord.objects.filter(
            source=Source.OPENALEX, entity=SourceRecord.Entity.WORK, work__isnull=False
        ).order_by("pk")
        after, seen, touched = 0, 0, set()
        while True:
            rows = list(
                records.filter(pk__gt=after).values_list("pk", "external_id", "work_id", "payload")[
                    :batch
                ]
            )
            if not rows:
                break
            after = rows[-1][0]
            seen += len(rows)
            items = [(work_id, _record(ident, payload)) for _, ident, work_id, payload in rows]
            with transaction.atomic():
                touched |= write_citations(items, {ident for _, ident, _, _ in rows})
        works, authors = sorted(touched), set()
        for start in range(0, len(works), 5000):
            chunk = works[start : start + 5000]
            authors |= set(
                Authorship.objects.filter(work_id__in=chunk).values_list("author_id", flat=True)
            )
        ids = sorted(authors)
        for start in range(0, len(ids), 500):
            metrics.author_metrics_refresh(author_ids=ids[start : start + 500])
        self.stdout.write(
            f"{seen} OpenAlex records read; {len(touched)} works gained or lost citations; "
            f"{len(ids)} authors' metrics recomputed."
        )


def _record(external_id: str, payload) -> WorkRecord:
    refs = payload.get("referenced_works") if isinstance(payload, dict) else None
    return WorkRecord(
        source=Source.OPENALEX,
        external_id=external_id,
        title="",
        referenced_works=referenced_works(refs, external_id, {}),
    )

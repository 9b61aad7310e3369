"""Fill open-access status, best open copy and biblio from OpenAlex records stored before them.

An import skips a record whose payload has not changed, so works stored before
these fields were read get them from here: each stored OpenAlex work payload
goes through the mapper's own readers, and a value fills only a blank field
(what a later import or staff set is never replaced). Running it again changes
nothing.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from catalogue.links import kept_url
from catalogue.models import Source, SourceRecord, Work
from ingestion.sources.openalex import mapping as openalex

BATCH = 1000
FIELDS = ("oa_status", "oa_url", "volume", "issue", "first_page", "last_page")


def stored_values(payload: object) -> dict[str, str]:
    """The fields' values in one stored payload ("" where it has none or they are unfit)."""
    payload = payload if isinstance(payload, dict) else {}
    values = dict(openalex.biblio_fields(payload.get("biblio")))
    values["oa_status"] = openalex.open_access_status(payload)
    values["oa_url"] = kept_url({}, "oa_url", openalex.open_access_url(payload))
    return values


class Command(BaseCommand):
    help = "Fill OA status, best open copy, volume, issue and pages from stored OpenAlex records."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=BATCH, help="records per transaction")

    def handle(self, *args, batch: int, **options):
        records = SourceRecord.objects.filter(
            source=Source.OPENALEX, entity=SourceRecord.Entity.WORK, work__isnull=False
        ).order_by("pk")
        after, seen, filled = 0, 0, 0
        while rows := list(
            records.filter(pk__gt=after).values_list("pk", "work_id", "payload")[:batch]
        ):
            after = rows[-1][0]
            seen += len(rows)
            with transaction.atomic():
                filled += _fill({work_id: stored_values(payload) for _, work_id, payload in rows})
        self.stdout.write(f"{seen} OpenAlex records read; {filled} works filled in.")


def _fill(values_by_work: dict[int, dict[str, str]]) -> int:
    works = (
        Work.objects.select_for_update().filter(pk__in=values_by_work).only(*FIELDS, "provenance")
    )
    changed = []
    for work in works:
        blank = {
            name: value
            for name, value in values_by_work[work.pk].items()
            if value and not getattr(work, name)
        }
        for name, value in blank.items():
            setattr(work, name, value[: Work._meta.get_field(name).max_length])
            work.provenance[name] = Source.OPENALEX.value
        if blank:
            changed.append(work)
    Work.objects.bulk_update(changed, [*FIELDS, "provenance"])
    return len(changed)

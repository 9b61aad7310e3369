"""Existing works follow the record rules: arXiv-only works are preprints, one date rule.

Later imports apply the same rules (ingestion.ingest.merge); this brings the
rows written before them in line without waiting for a re-import.
"""

from django.db import migrations
from django.db.models import F
from django.db.models.functions import ExtractYear

BATCH = 1000


def arxiv_only_are_preprints(apps, schema_editor):
    Work = apps.get_model("publications", "Work")
    rows = Work.objects.filter(
        type="article", arxiv_id__isnull=False, openalex_id__isnull=True
    ).only("id", "provenance")
    changed = []
    for work in rows.iterator(chunk_size=BATCH):
        provenance = work.provenance if isinstance(work.provenance, dict) else {}
        if "type" not in provenance:  # the model's default, never a source's word
            work.type = "preprint"
            work.provenance = {**provenance, "type": "arxiv"}
            changed.append(work)
    Work.objects.bulk_update(changed, ["type", "provenance"], batch_size=BATCH)


def years_follow_dates(apps, schema_editor):
    Work = apps.get_model("publications", "Work")
    rows = (
        Work.objects.filter(publication_date__isnull=False)
        .annotate(date_year=ExtractYear("publication_date"))
        .exclude(publication_year=F("date_year"))
        .only("id", "publication_date", "publication_year", "type", "provenance")
    )
    changed = []
    for work in rows.iterator(chunk_size=BATCH):
        provenance = work.provenance if isinstance(work.provenance, dict) else {}
        if (
            work.publication_year is not None
            and work.type != "preprint"
            and provenance.get("publication_year") == "openalex"
            and provenance.get("publication_date") != "openalex"
        ):
            # The version of record gave only its year; the date was a preprint's.
            work.publication_date = None
        else:
            work.publication_year = work.publication_date.year
        changed.append(work)
    Work.objects.bulk_update(changed, ["publication_date", "publication_year"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("publications", "0016_citations")]

    operations = [
        migrations.RunPython(arxiv_only_are_preprints, migrations.RunPython.noop),
        migrations.RunPython(years_follow_dates, migrations.RunPython.noop),
    ]

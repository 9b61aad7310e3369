"""Works keep the type and the date precision their source gives, and arXiv's own facts.

Adds ``Work.publication_date_precision`` and OpenAlex's whole vocabulary of types,
then brings the rows written before these rules in line, from the stored source
records (an import skips a record it holds unchanged, so it would not):

- a type OpenAlex gives that was read as "other" or "article" becomes that type;
- an OpenAlex date is kept at its precision (docs/DATES.md); where that leaves a
  first version at a year or a month, arXiv's day of the same preprint dates it;
- an arXiv journal reference that names a year dates the version of record,
  unless OpenAlex dates it, and arXiv's first version becomes the created date;
- MSC and ACM classes that were stored as arXiv categories are removed.
"""

from datetime import date

from django.db import migrations, models
from django.db.models.fields.json import KeyTextTransform

from ingestion.sources.arxiv.mapping import is_arxiv_category, journal_year

BATCH = 1000

# How the types were read before (OpenAlex's word -> the stored type) and how now.
_READ_BEFORE = {
    "journal-article": "article",
    "proceedings-article": "article",
    "letter": "article",
    "posted-content": "preprint",
    "preprint": "preprint",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book": "book",
    "book-chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "reference-entry": "book-chapter",
    "dataset": "dataset",
    "dissertation": "dissertation",
    "review": "review",
    "article": "article",
}
_OPENALEX_TYPES = {
    "book-review",
    "editorial",
    "erratum",
    "grant",
    "letter",
    "libguides",
    "paratext",
    "peer-review",
    "reference-entry",
    "report",
    "retraction",
    "standard",
    "supplementary-materials",
}
_CROSSREF_TYPES = {
    "book-set": "book",
    "report-series": "report",
    "report-component": "report",
    "database": "dataset",
}


def _read_now(word: str) -> str | None:
    if word in _OPENALEX_TYPES:
        return word
    return _CROSSREF_TYPES.get(word)


def _records(apps, source: str, key: str, work_ids):
    """(work id, the payload's ``key`` as text) of the work records ``source`` gave."""
    SourceRecord = apps.get_model("publications", "SourceRecord")
    return (
        SourceRecord.objects.filter(source=source, entity="work", work_id__in=work_ids)
        .annotate(value=KeyTextTransform(key, "payload"))
        .values_list("work_id", "value")
    )


def types_as_openalex_gives_them(apps, schema_editor):
    Work = apps.get_model("publications", "Work")
    rows = Work.objects.filter(type__in=["article", "other"], provenance__type="openalex")
    ids = list(rows.values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        chunk = Work.objects.in_bulk(ids[start : start + BATCH])
        found: dict[int, set[str]] = {}
        for work_id, word in _records(apps, "openalex", "type", chunk):
            word = (word or "").strip().lower()
            work = chunk[work_id]
            # Only a record whose word was read as the type the work holds set it.
            if _READ_BEFORE.get(word, "other") == work.type and _read_now(word):
                found.setdefault(work_id, set()).add(_read_now(word))
        changed = []
        for work_id, types in found.items():
            if len(types) == 1 and (kind := types.pop()) != chunk[work_id].type:
                chunk[work_id].type = kind
                changed.append(chunk[work_id])
        Work.objects.bulk_update(changed, ["type"], batch_size=BATCH)


def openalex_dates_at_their_precision(apps, schema_editor):
    Work = apps.get_model("publications", "Work")
    openalex = Work.objects.filter(
        provenance__publication_date="openalex", publication_date__isnull=False
    )
    first = openalex.filter(publication_date__day=1)
    first.filter(publication_date__month=1).update(publication_date_precision="year")
    first.exclude(publication_date__month=1).update(publication_date_precision="month")
    _first_versions_take_arxiv_s_day(apps)


def _first_versions_take_arxiv_s_day(apps):
    """A preprint OpenAlex dates to a year or month takes arXiv's day within it."""
    Work = apps.get_model("publications", "Work")
    vague = Work.objects.filter(
        provenance__date_version="first", publication_date_precision__in=["year", "month"]
    )
    ids = list(vague.values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        chunk = Work.objects.in_bulk(ids[start : start + BATCH])
        changed = []
        for work_id, published in _records(apps, "arxiv", "published", chunk):
            work, day = chunk[work_id], _day(published)
            same_year = day and day.year == work.publication_date.year
            if not same_year or (
                work.publication_date_precision == "month"
                and day.month != work.publication_date.month
            ):
                continue
            work.publication_date, work.publication_date_precision = day, "day"
            work.provenance = {
                **work.provenance,
                "publication_date": "arxiv",
                "publication_year": "arxiv",
            }
            changed.append(work)
        fields = ["publication_date", "publication_date_precision", "provenance"]
        Work.objects.bulk_update(changed, fields, batch_size=BATCH)


def _day(text) -> date | None:
    try:
        return date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def journal_references_date_the_version_of_record(apps, schema_editor):
    Work = apps.get_model("publications", "Work")
    rows = Work.objects.exclude(journal_ref="").exclude(provenance__date_version="record")
    ids = list(rows.exclude(provenance__publication_date="staff").values_list("pk", flat=True))
    for start in range(0, len(ids), BATCH):
        chunk = Work.objects.in_bulk(ids[start : start + BATCH])
        changed = []
        for work in chunk.values():
            year = journal_year(work.journal_ref)
            provenance = dict(work.provenance)
            holder = provenance.get("publication_date")
            if year is None or _dates_version_of_record(work, provenance):
                continue
            if holder == "arxiv" and work.publication_date:
                work.source_created_date = work.publication_date  # arXiv's first version
                provenance["source_created_date"] = "arxiv"
            provenance["publication_date"] = provenance["publication_year"] = "arxiv"
            work.publication_date, work.publication_year = date(year, 1, 1), year
            work.publication_date_precision = "year"
            provenance["date_version"] = "record"
            work.provenance = provenance
            changed.append(work)
        fields = [
            "publication_date",
            "publication_year",
            "publication_date_precision",
            "source_created_date",
            "provenance",
        ]
        Work.objects.bulk_update(changed, fields, batch_size=BATCH)


def _dates_version_of_record(work, provenance: dict) -> bool:
    # Rows from before the date versions were noted: OpenAlex dated the version of record.
    return (
        provenance.get("date_version") is None
        and provenance.get("publication_date") == "openalex"
        and work.type != "preprint"
    )


def classes_are_not_arxiv_categories(apps, schema_editor):
    Topic = apps.get_model("publications", "Topic")
    WorkTopic = apps.get_model("publications", "WorkTopic")
    keys = Topic.objects.filter(kind="arxiv").values_list("pk", "key")
    wrong = [pk for pk, key in keys if not is_arxiv_category(key.removeprefix("arxiv:"))]
    for start in range(0, len(wrong), BATCH):
        part = wrong[start : start + BATCH]
        WorkTopic.objects.filter(topic_id__in=part).delete()
        Topic.objects.filter(pk__in=part).delete()


class Migration(migrations.Migration):
    dependencies = [("publications", "0024_source_record_updated_at")]

    operations = [
        migrations.AddField(
            model_name="work",
            name="publication_date_precision",
            field=models.CharField(
                choices=[("year", "Year"), ("month", "Month"), ("day", "Day")],
                db_default="day",
                default="day",
                help_text=(
                    "How much of the publication date the source gives: its year, month or day."
                ),
                max_length=5,
            ),
        ),
        migrations.AlterField(
            model_name="work",
            name="type",
            field=models.CharField(
                choices=[
                    ("article", "Article"),
                    ("preprint", "Preprint"),
                    ("book", "Book"),
                    ("book-chapter", "Book chapter"),
                    ("dataset", "Dataset"),
                    ("dissertation", "Dissertation"),
                    ("review", "Review"),
                    ("book-review", "Book review"),
                    ("editorial", "Editorial"),
                    ("erratum", "Erratum"),
                    ("grant", "Grant"),
                    ("letter", "Letter"),
                    ("libguides", "Library guide"),
                    ("paratext", "Paratext"),
                    ("peer-review", "Peer review"),
                    ("reference-entry", "Reference entry"),
                    ("report", "Report"),
                    ("retraction", "Retraction"),
                    ("standard", "Standard"),
                    ("supplementary-materials", "Supplementary materials"),
                    ("other", "Other"),
                ],
                default="article",
                max_length=32,
            ),
        ),
        migrations.RunPython(types_as_openalex_gives_them, migrations.RunPython.noop),
        migrations.RunPython(openalex_dates_at_their_precision, migrations.RunPython.noop),
        migrations.RunPython(
            journal_references_date_the_version_of_record, migrations.RunPython.noop
        ),
        migrations.RunPython(classes_are_not_arxiv_categories, migrations.RunPython.noop),
    ]

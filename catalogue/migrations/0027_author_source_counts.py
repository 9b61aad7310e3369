"""The source's own counts on an author record; where an affiliation comes from; how
current the figures computed from works are."""

from django.db import migrations, models

import catalogue.fields


def mark_record_affiliations(apps, schema_editor):
    """Affiliations with years came from an author record (bylines give no years)."""
    AuthorInstitution = apps.get_model("publications", "AuthorInstitution")
    AuthorInstitution.objects.exclude(years=[]).update(in_author_record=True)


class Migration(migrations.Migration):
    dependencies = [("publications", "0026_worksearch_emptied_with_works")]

    operations = [
        migrations.AddField(
            model_name="author",
            name="counts_as_of",
            field=models.DateTimeField(
                blank=True,
                help_text="When the source last updated the record it counted in.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="counts_source",
            field=models.CharField(
                blank=True,
                choices=[
                    ("openalex", "OpenAlex"),
                    ("arxiv", "arXiv"),
                    ("claim", "Claim by the researcher"),
                    ("staff", "Staff"),
                ],
                db_default="",
                default="",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="source_cited_by_count",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="author",
            name="source_counts_by_year",
            field=catalogue.fields.JSONField(blank=True, default=list, null=True),
        ),
        migrations.AddField(
            model_name="author",
            name="source_h_index",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="author",
            name="source_i10_index",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="author",
            name="source_mean_citedness",
            field=models.FloatField(
                blank=True,
                help_text="Mean citations of the works of the two years before.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="author",
            name="source_topics_count",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="author",
            name="source_works_count",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="authorinstitution",
            name="in_author_record",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="authormetrics",
            name="works_dated_from",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="authormetrics",
            name="works_dated_to",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name="author",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("source_mean_citedness__isnull", True),
                    ("source_mean_citedness__gte", 0),
                    _connector="OR",
                ),
                name="author_source_mean_citedness_not_negative",
            ),
        ),
        migrations.RunPython(mark_record_affiliations, migrations.RunPython.noop),
    ]

"""What OpenAlex says of the works cited here but not held (``ReferencePreview``)."""

import django.db.models.functions.text
import django.db.models.lookups
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("publications", "0027_author_source_counts")]

    operations = [
        migrations.CreateModel(
            name="ReferencePreview",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("openalex_id", models.CharField(max_length=32, unique=True)),
                ("title", models.TextField(blank=True, max_length=2000)),
                ("year", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("first_author", models.CharField(blank=True, max_length=300)),
                ("fetched_at", models.DateTimeField()),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=django.db.models.lookups.LessThanOrEqual(
                            django.db.models.functions.text.Length("title"), 2000
                        ),
                        name="referencepreview_title_bounded",
                    )
                ],
            },
        ),
    ]

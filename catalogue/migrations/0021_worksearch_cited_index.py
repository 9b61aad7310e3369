"""An index of the visible search rows in citation order (PostgreSQL only).

A search for a common word ranks only the most cited of its matches
(search.matches.SampledMatches); the planner finds them by walking this
index and stopping once it has enough, whatever the corpus size.
"""

from django.db import migrations

FORWARD = """
CREATE INDEX IF NOT EXISTS publications_worksearch_cited
ON publications_worksearch (cited_by_count DESC NULLS LAST, work_id DESC) WHERE visible;
"""
BACKWARD = "DROP INDEX IF EXISTS publications_worksearch_cited;"


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0020_work_open_access_db_defaults")]

    operations = [migrations.RunPython(_on_postgres(FORWARD), _on_postgres(BACKWARD))]

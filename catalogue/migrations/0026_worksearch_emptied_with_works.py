"""Empty the search rows when the work table is truncated (PostgreSQL only).

TRUNCATE fires no DELETE trigger, and the search rows have no foreign key to
cascade through, so ``manage.py flush`` and any other TRUNCATE of the works left
their search rows behind: a later work given a freed id took them over, and
the rest went on matching searches, counted and ranked, for works that no
longer exist. A statement trigger on TRUNCATE now empties them too, and rows
already orphaned that way are removed.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION publications_worksearch_truncated() RETURNS trigger AS $$
BEGIN
  TRUNCATE publications_worksearch;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER publications_worksearch_truncate AFTER TRUNCATE ON publications_work
  FOR EACH STATEMENT EXECUTE FUNCTION publications_worksearch_truncated();

DELETE FROM publications_worksearch s
WHERE NOT EXISTS (SELECT 1 FROM publications_work w WHERE w.id = s.work_id);
"""

BACKWARD = """
DROP TRIGGER IF EXISTS publications_worksearch_truncate ON publications_work;
DROP FUNCTION IF EXISTS publications_worksearch_truncated();
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0025_works_keep_source_types_and_date_precision")]

    operations = [migrations.RunPython(_on_postgres(FORWARD), _on_postgres(BACKWARD))]

"""Full-text search on PostgreSQL: tsvector triggers, GIN and trigram indexes.

The search_vector columns exist on every database; only PostgreSQL fills and
indexes them. SQLite keeps the column empty and searches with simple matching.
"""

from django.db import migrations

FORWARD = """
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE OR REPLACE FUNCTION publications_work_search_vector() RETURNS trigger AS $$
BEGIN
  NEW.search_vector :=
    setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A') ||
    setweight(to_tsvector('english', coalesce(NEW.abstract, '')), 'B');
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER publications_work_search_vector_trigger
  BEFORE INSERT OR UPDATE ON publications_work
  FOR EACH ROW EXECUTE FUNCTION publications_work_search_vector();

CREATE OR REPLACE FUNCTION publications_author_search_vector() RETURNS trigger AS $$
BEGIN
  NEW.search_vector :=
    setweight(to_tsvector('simple', coalesce(NEW.display_name, '')), 'A') ||
    setweight(to_tsvector('simple', coalesce(NEW.alternative_names::text, '')), 'B');
  RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER publications_author_search_vector_trigger
  BEFORE INSERT OR UPDATE ON publications_author
  FOR EACH ROW EXECUTE FUNCTION publications_author_search_vector();

CREATE INDEX publications_work_search_gin ON publications_work USING gin (search_vector);
CREATE INDEX publications_author_search_gin ON publications_author USING gin (search_vector);
CREATE INDEX publications_author_name_trgm ON publications_author
  USING gin (normalized_name gin_trgm_ops);
CREATE INDEX publications_work_title_trgm ON publications_work
  USING gin (normalized_title gin_trgm_ops);
"""

BACKWARD = """
DROP INDEX IF EXISTS publications_work_title_trgm;
DROP INDEX IF EXISTS publications_author_name_trgm;
DROP INDEX IF EXISTS publications_author_search_gin;
DROP INDEX IF EXISTS publications_work_search_gin;
DROP TRIGGER IF EXISTS publications_author_search_vector_trigger ON publications_author;
DROP FUNCTION IF EXISTS publications_author_search_vector();
DROP TRIGGER IF EXISTS publications_work_search_vector_trigger ON publications_work;
DROP FUNCTION IF EXISTS publications_work_search_vector();
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0001_initial")]

    operations = [migrations.RunPython(_on_postgres(FORWARD), _on_postgres(BACKWARD))]

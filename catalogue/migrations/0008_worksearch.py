"""A narrow copy of each work for search on PostgreSQL: vector, type, year, citations.

Counting, ranking and faceting thousands of matches reads only these rows, not
the wide work rows with their abstracts and JSON. Statement-level triggers with
transition tables keep it in step with publications_work in one set-based
statement per INSERT, UPDATE or DELETE, which costs imports less than the
per-row trigger it replaces. Other databases keep no such table.
"""

from django.db import migrations

VECTOR = (
    "setweight(to_tsvector('english', coalesce({t}.title, '')), 'A') || "
    "setweight(to_tsvector('english', coalesce({t}.abstract, '')), 'B')"
)

FORWARD = f"""
DROP TRIGGER IF EXISTS publications_work_search_vector_trigger ON publications_work;
DROP FUNCTION IF EXISTS publications_work_search_vector();
DROP INDEX IF EXISTS publications_work_search_gin;

CREATE TABLE publications_worksearch (
  work_id bigint PRIMARY KEY,
  search_vector tsvector NOT NULL,
  type varchar(32) NOT NULL,
  publication_year integer,
  cited_by_count integer,
  visible boolean NOT NULL
);

INSERT INTO publications_worksearch
SELECT w.id, {VECTOR.format(t="w")}, w.type, w.publication_year, w.cited_by_count,
       w.merged_into_id IS NULL
FROM publications_work w;

CREATE INDEX publications_worksearch_gin ON publications_worksearch USING gin (search_vector);
ANALYZE publications_worksearch;

CREATE FUNCTION publications_worksearch_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO publications_worksearch
  SELECT n.id, {VECTOR.format(t="n")}, n.type, n.publication_year, n.cited_by_count,
         n.merged_into_id IS NULL
  FROM new_rows n
  ON CONFLICT (work_id) DO UPDATE SET
    search_vector = EXCLUDED.search_vector, type = EXCLUDED.type,
    publication_year = EXCLUDED.publication_year, cited_by_count = EXCLUDED.cited_by_count,
    visible = EXCLUDED.visible;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE FUNCTION publications_worksearch_updated() RETURNS trigger AS $$
BEGIN
  UPDATE publications_worksearch s SET
    search_vector = CASE
      WHEN n.title IS DISTINCT FROM o.title OR n.abstract IS DISTINCT FROM o.abstract
      THEN {VECTOR.format(t="n")} ELSE s.search_vector END,
    type = n.type, publication_year = n.publication_year,
    cited_by_count = n.cited_by_count, visible = n.merged_into_id IS NULL
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE s.work_id = n.id AND (
    n.title IS DISTINCT FROM o.title OR n.abstract IS DISTINCT FROM o.abstract
    OR n.type IS DISTINCT FROM o.type OR n.publication_year IS DISTINCT FROM o.publication_year
    OR n.cited_by_count IS DISTINCT FROM o.cited_by_count
    OR n.merged_into_id IS DISTINCT FROM o.merged_into_id);
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE FUNCTION publications_worksearch_deleted() RETURNS trigger AS $$
BEGIN
  DELETE FROM publications_worksearch s USING old_rows o WHERE s.work_id = o.id;
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER publications_worksearch_insert AFTER INSERT ON publications_work
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION publications_worksearch_inserted();
CREATE TRIGGER publications_worksearch_update AFTER UPDATE ON publications_work
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION publications_worksearch_updated();
CREATE TRIGGER publications_worksearch_delete AFTER DELETE ON publications_work
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION publications_worksearch_deleted();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS publications_worksearch_delete ON publications_work;
DROP TRIGGER IF EXISTS publications_worksearch_update ON publications_work;
DROP TRIGGER IF EXISTS publications_worksearch_insert ON publications_work;
DROP FUNCTION IF EXISTS publications_worksearch_deleted();
DROP FUNCTION IF EXISTS publications_worksearch_updated();
DROP FUNCTION IF EXISTS publications_worksearch_inserted();
DROP TABLE IF EXISTS publications_worksearch;
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0007_sourcerecord_payload_json")]

    operations = [
        migrations.CreateModel(
            name="WorkSearch",
            fields=[],
            options={"managed": False, "db_table": "publications_worksearch"},
        ),
        migrations.RunPython(_on_postgres(FORWARD), _on_postgres(BACKWARD)),
        migrations.RemoveField(model_name="work", name="search_vector"),
    ]

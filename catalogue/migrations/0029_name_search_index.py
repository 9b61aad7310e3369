"""Name search over the visible researchers only (PostgreSQL only).

A search for a person reads two indexes, each holding only the researchers a
page may show (not merged away, not deleted placeholders), so merged and deleted
records cost nothing however many of them accumulate:

- the words of the name (``search_vector``, display and alternative names), for
  a name written as it is held;
- the trigrams of the accent-folded name (``normalized_name``), for a name
  misspelt or partly typed, with word similarity (``%>``): it replaces the
  index of every author's name that 0002 made.

search.names reads at most a fixed number of candidates from either and ranks
them by how well the name matches, then by evidence (a claimed record, works,
citations). Other databases keep no such index.

The read API's work lists walk the visible works in the order asked for
(newest first, or most cited first) through an index in that order, so a page,
by number or by cursor, reads the rows it shows rather than sorting every work
(pages.api.paging).
"""

from django.db import migrations

VISIBLE = "merged_into_id IS NULL AND NOT is_deleted"
# catalogue.filters.ORDERINGS["newest"]
NEWEST = "publication_year DESC NULLS LAST, publication_date DESC NULLS LAST, id DESC"

FORWARD = f"""
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS publications_author_visible_name_trgm
  ON publications_author USING gin (normalized_name gin_trgm_ops) WHERE {VISIBLE};
CREATE INDEX IF NOT EXISTS publications_author_visible_search
  ON publications_author USING gin (search_vector) WHERE {VISIBLE};
DROP INDEX IF EXISTS publications_author_name_trgm;
DROP INDEX IF EXISTS publications_author_search_gin;
ANALYZE publications_author;

CREATE INDEX IF NOT EXISTS publications_work_newest_visible ON publications_work
  ({NEWEST}) WHERE merged_into_id IS NULL;
CREATE INDEX IF NOT EXISTS publications_work_cited_visible ON publications_work
  (cited_by_count DESC NULLS LAST, {NEWEST}) WHERE merged_into_id IS NULL;
"""

BACKWARD = """
CREATE INDEX IF NOT EXISTS publications_author_name_trgm
  ON publications_author USING gin (normalized_name gin_trgm_ops);
CREATE INDEX IF NOT EXISTS publications_author_search_gin
  ON publications_author USING gin (search_vector);
DROP INDEX IF EXISTS publications_author_visible_name_trgm;
DROP INDEX IF EXISTS publications_author_visible_search;
DROP INDEX IF EXISTS publications_work_newest_visible;
DROP INDEX IF EXISTS publications_work_cited_visible;
"""


def _on_postgres(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0028_reference_previews")]

    operations = [migrations.RunPython(_on_postgres(FORWARD), _on_postgres(BACKWARD))]

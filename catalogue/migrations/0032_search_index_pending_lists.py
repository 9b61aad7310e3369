"""Small pending lists on the search indexes (PostgreSQL only).

A GIN index takes new entries into a pending list that is merged into the
index by vacuum. After an import, thousands of entries wait there, every
search scans them, and the planner prices the index so high that it scans
the whole table instead. A small limit merges them as they come, at no
measurable cost to an import.
"""

from django.db import migrations

INDEXES = (
    "publications_worksearch_gin",
    "publications_author_visible_name_trgm",
    "publications_author_visible_search",
)
FORWARD = [f"ALTER INDEX IF EXISTS {name} SET (gin_pending_list_limit = 256);" for name in INDEXES]
BACKWARD = [f"ALTER INDEX IF EXISTS {name} RESET (gin_pending_list_limit);" for name in INDEXES]
CLEAN = """
SELECT gin_clean_pending_list(c.oid) FROM pg_class c
WHERE c.relkind = 'i' AND c.relname = ANY(%s);
"""


def _forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in FORWARD:
        schema_editor.execute(sql)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(CLEAN, [list(INDEXES)])


def _backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in BACKWARD:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("publications", "0031_novelty_basis")]

    operations = [migrations.RunPython(_forward, _backward)]

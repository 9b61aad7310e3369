"""Keep source record payloads out of the table's main heap on PostgreSQL.

A payload (an OpenAlex work is about 4 kB) compressed to about 1.3 kB stays inline
by default, which made every source record row fat: checking a batch of content
hashes read 130 MB of heap for 100,000 records. With ``toast_tuple_target`` at its
minimum a compressed payload moves to the TOAST table and the row keeps only ids,
hashes and a pointer. lz4 compresses several times faster than the default pglz.
Only rows written from now on are affected; other databases are left alone.
"""

from django.db import migrations

TABLE = "publications_sourcerecord"
LZ4_AVAILABLE = """
SELECT 1 FROM pg_settings
WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"ALTER TABLE {TABLE} SET (toast_tuple_target = 128)")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(LZ4_AVAILABLE)
        if cursor.fetchone():
            schema_editor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN payload SET COMPRESSION lz4")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"ALTER TABLE {TABLE} RESET (toast_tuple_target)")
    schema_editor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN payload SET COMPRESSION default")


class Migration(migrations.Migration):
    dependencies = [("publications", "0005_similarity")]

    operations = [migrations.RunPython(forward, backward)]

"""Source record payloads in a PostgreSQL ``json`` column (see ``PayloadField``).

Changing the type rewrites the table, so the storage settings of 0006 are
applied again afterwards.
"""

import importlib

from django.db import migrations

import catalogue.models

storage = importlib.import_module("catalogue.migrations.0006_sourcerecord_payload_storage")


class Migration(migrations.Migration):
    dependencies = [("publications", "0006_sourcerecord_payload_storage")]

    operations = [
        migrations.AlterField(
            model_name="sourcerecord",
            name="payload",
            field=catalogue.models.PayloadField(),
        ),
        migrations.RunPython(storage.forward, migrations.RunPython.noop),
    ]

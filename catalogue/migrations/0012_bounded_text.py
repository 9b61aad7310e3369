"""Bound the long text columns: titles, abstracts, comments and raw affiliations.

Imports cut these texts to the bounds in ``catalogue.text`` (the whole text
stays in the source record's payload); the CHECK constraints make the database
refuse anything longer, whoever writes it. ``max_length`` on the text fields
changes no column (they stay ``text``); it bounds forms and the admin.

The work table can hold millions of rows, so on PostgreSQL the constraints are
added without holding it locked while every row is read: rows written before
these bounds are first cut to them (ending in "…", a few rows if any), each
constraint is added ``NOT VALID`` (a moment's lock; new rows are checked from
then on) and then validated, which reads the table under a lock that lets reads
and writes go on. Hence ``atomic = False``: each step commits on its own, and a
migration stopped half-way is simply run again. Other databases add the
constraints the ordinary way.
"""

from django.db import migrations, models
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual

BOUNDS = [  # (model, table, column, limit)
    ("work", "publications_work", "title", 2000),
    ("work", "publications_work", "abstract", 50000),
    ("work", "publications_work", "comments", 5000),
    ("authorship", "publications_authorship", "raw_affiliation", 5000),
]


def constraint(model: str, column: str, limit: int) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=LessThanOrEqual(Length(column), limit), name=f"{model}_{column}_bounded"
    )


def cut_long_rows(apps, schema_editor):
    """Cut texts written before the bounds, as imports now cut them."""
    for _model, table, column, limit in BOUNDS:
        schema_editor.execute(
            f"UPDATE {table} SET {column} = rtrim(substr({column}, 1, %s)) || %s "
            f"WHERE length({column}) > %s",
            [limit - 1, "…", limit],
        )


class AddCheckWithoutLongLock(migrations.AddConstraint):
    """``AddConstraint``; on PostgreSQL added NOT VALID, then validated in a second step."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        model = to_state.apps.get_model(app_label, self.model_name)
        table = schema_editor.quote_name(model._meta.db_table)
        name = schema_editor.quote_name(self.constraint.name)
        check = self.constraint.constraint_sql(model, schema_editor)  # "CONSTRAINT x CHECK (...)"
        schema_editor.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}")
        schema_editor.execute(f"ALTER TABLE {table} ADD {check} NOT VALID")
        schema_editor.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("publications", "0011_importrun_waiting_status")]

    operations = [
        migrations.AlterField(
            model_name="authorship",
            name="raw_affiliation",
            field=models.TextField(blank=True, max_length=5000),
        ),
        migrations.AlterField(
            model_name="work", name="abstract", field=models.TextField(blank=True, max_length=50000)
        ),
        migrations.AlterField(
            model_name="work", name="comments", field=models.TextField(blank=True, max_length=5000)
        ),
        migrations.AlterField(
            model_name="work", name="title", field=models.TextField(blank=True, max_length=2000)
        ),
        migrations.RunPython(cut_long_rows, migrations.RunPython.noop),
        *[
            AddCheckWithoutLongLock(model_name=model, constraint=constraint(model, column, limit))
            for model, _table, column, limit in BOUNDS
        ],
    ]

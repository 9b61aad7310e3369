"""PostgreSQL keeps the plans of statements a connection runs again and again."""

import os
import subprocess
import sys

import pytest
from django.db import connection

from catalogue.models import Work
from tests.config.test_settings import ROOT

SHOW_OPTIONS = (
    "from config import settings; options = settings.DATABASES['default']['OPTIONS']; "
    "print(options.get('server_side_binding', False), options.get('prepare_threshold'))"
)


@pytest.mark.parametrize(
    ("value", "expected"), [(None, "True 5"), ("true", "True 5"), ("false", "False None")]
)
def test_postgres_binds_parameters_on_the_server_unless_told_not_to(value, expected):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_PREPARED"}
    env["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/never_connected"
    if value is not None:
        env["DATABASE_PREPARED"] = value
    shown = subprocess.run(
        [sys.executable, "-c", SHOW_OPTIONS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert shown.stdout.strip() == expected


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL (DATABASE_URL)")
def test_a_statement_run_again_and_again_is_prepared_once():
    work_ids = [-1, -2]
    for _ in range(8):  # each run with new values: the statement's text stays the same
        work_ids = [w - 2 for w in work_ids]
        list(Work.objects.filter(id__in=work_ids).values_list("title", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ['SELECT "publications_work"."title" AS "title" FROM "publications_work" WHERE %'],
        )
        (prepared,) = cursor.fetchone()
    assert prepared == 1


@pytest.mark.django_db
def test_bulk_writes_of_more_values_than_a_statement_takes_are_batched():
    works = [Work(title=f"Bulk {i}", normalized_title=f"bulk {i}") for i in range(4000)]
    Work.objects.bulk_create(works, batch_size=None)
    assert Work.objects.filter(title__startswith="Bulk ").count() == 4000
    stored = list(Work.objects.filter(title__startswith="Bulk "))
    for work in stored:
        work.abstract = "Rewritten."
    Work.objects.bulk_update(stored, ["abstract", "title", "normalized_title"])
    assert Work.objects.filter(abstract="Rewritten.").count() == 4000

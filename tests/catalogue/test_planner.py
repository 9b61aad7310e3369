"""Planner statistics for tables a bulk job has just filled."""

import pytest
from django.db import DatabaseError, connection

from catalogue import planner
from catalogue.models import Work
from tests.factories import WorkFactory

pytestmark = pytest.mark.django_db


def _reltuples(table: str) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="planner statistics: PostgreSQL")
def test_the_named_tables_are_analysed():
    WorkFactory.create_batch(3)
    assert planner.analyse({Work: ["doi", "openalex_id"]})
    assert _reltuples(Work._meta.db_table) == 3


def test_a_refusal_is_reported_not_raised(monkeypatch, caplog):
    class Refusing:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def execute(self, sql):
            raise DatabaseError("must be owner of table")

    monkeypatch.setattr(connection, "vendor", "postgresql")
    monkeypatch.setattr(connection, "cursor", Refusing)
    assert planner.analyse({Work: ["doi"]}) is False
    assert "Could not analyse" in caplog.text

"""A work as the read API's detail gives it (``WorkDetailSerializer``), in three queries.

The work's row, with its venue's name, the number of works it cites and whether
any name of its byline is held by no record; its first names, as a list entry
reads them (``pages.api.bylines``); and its first topics and grants, with how
many it has of each. The row and the lists are read in SQL, as the names are:
built through the ORM, these queries cost several times what running them
does, and every cold request for a work builds them. Each column of the row is
converted as the ORM converts it (``_converted``). Values are written as the
serializer's fields write them; the serializer stays the declaration the schema
documents.
"""

from __future__ import annotations

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.expressions import Col
from rest_framework import serializers

from catalogue import selectors
from catalogue.citations import references_known
from catalogue.models import (
    Citation,
    Funder,
    Grant,
    Topic,
    UnlinkedAuthorship,
    Venue,
    Work,
    WorkTopic,
)
from pages.api.bylines import Bylines, text
from pages.api.work_rows import DETAIL_STORED, LIST_COLUMNS, PageURLs, web, written

DETAIL_COLUMNS = (
    *LIST_COLUMNS,
    *DETAIL_STORED,
    "language",
    "provenance",
)
# Dates and times as the serializer's DateField and DateTimeField write them.
DAY, MOMENT = serializers.DateField(), serializers.DateTimeField()


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@lru_cache(maxsize=4)
def _row_sql(vendor: str) -> str:
    """The row's query on the database ``vendor``, built once (it names every column)."""
    quote = connection.ops.quote_name
    columns = ", ".join(f"w.{quote(Work._meta.get_field(name).column)}" for name in DETAIL_COLUMNS)
    return f"""
        SELECT {columns}, v.name AS venue_name,
               EXISTS (SELECT 1 FROM {_table(UnlinkedAuthorship)} u WHERE u.work_id = w.id)
                   AS any_unlinked,
               (SELECT COUNT(*) FROM {_table(Citation)} c WHERE c.citing_id = w.id)
                   AS references_total
        FROM {_table(Work)} w LEFT JOIN {_table(Venue)} v ON v.id = w.venue_id
        WHERE w.id = %s AND w.merged_into_id IS NULL
    """  # noqa: S608 - quoted identifiers from the models, values as parameters


@lru_cache(maxsize=16)
def _converters(database: BaseDatabaseWrapper) -> list[tuple[str, Col, list]]:
    """Each column of ``DETAIL_COLUMNS`` with the ORM's converters of its values read
    through ``database`` (a connection of one thread, kept while the thread lives)."""
    found = []
    for name in DETAIL_COLUMNS:
        column = Work._meta.get_field(name).get_col(Work._meta.db_table)
        converters = database.ops.get_db_converters(column)
        found.append((name, column, converters + column.get_db_converters(database)))
    return found


def _converted(values) -> dict:
    """The row's ``values`` of ``DETAIL_COLUMNS``, each converted as the ORM converts it
    (JSON read; on SQLite dates, times and booleans)."""
    row, database = {}, connections[DEFAULT_DB_ALIAS]
    for (name, column, converters), value in zip(_converters(database), values, strict=True):
        for convert in converters:
            value = convert(value, column, database)
        row[name] = value
    return row


@lru_cache(maxsize=4)
def _lists_sql(vendor: str) -> str:
    """The first topics (primary first, then by score) and grants (by funder, award) of a
    work, each with its place and how many the work has: the work's id twice, then the
    last place kept. On the database ``vendor``, built once."""
    topic, grant = _table(Topic), _table(Grant)
    return f"""
        SELECT * FROM (
            SELECT 0 AS part,
                   ROW_NUMBER() OVER (ORDER BY wt.is_primary DESC, wt.score DESC, wt.id)
                       AS place,
                   COUNT(*) OVER () AS total,
                   t.id, t.{connection.ops.quote_name("key")}, t.name, t.kind, t.parent_id,
                   up.name AS parent_name
            FROM {_table(WorkTopic)} wt JOIN {topic} t ON t.id = wt.topic_id
            LEFT JOIN {topic} up ON up.id = t.parent_id
            WHERE wt.work_id = %s
            UNION ALL
            SELECT 1, ROW_NUMBER() OVER (ORDER BY f.name, g.award_id, g.id), COUNT(*) OVER (),
                   NULL, f.name, g.award_id, NULL, NULL, NULL
            FROM {grant} g JOIN {_table(Funder)} f ON f.id = g.funder_id
            WHERE g.work_id = %s
        ) lists WHERE place <= %s ORDER BY part, place
    """  # noqa: S608 - quoted identifiers from the models, values as parameters


def _lists(pk: int, count: int) -> dict:
    """``topics``, ``topics_count``, ``grants`` and ``grants_count`` of the work."""
    found = {"topics": [], "topics_count": 0, "grants": [], "grants_count": 0}
    with connection.cursor() as cursor:
        cursor.execute(_lists_sql(connection.vendor), [pk, pk, count])
        rows = cursor.fetchall()
    for part, _, total, topic, key, name, kind, parent, parent_name in rows:
        if part == 0:
            found["topics_count"] = total
            found["topics"].append(
                {
                    "id": topic,
                    "key": text(key),
                    "name": text(name),
                    "kind": kind,
                    "parent": parent,
                    "parent_name": text(parent_name),
                }
            )
        else:
            found["grants_count"] = total
            found["grants"].append({"funder": text(key), "award_id": text(name)})
    return found


def _source_facts(row: dict, cited: int) -> dict:
    """``language``, ``cited_by_count_as_of`` and ``references_count`` (``SourceFacts``)."""
    facts = ("openalex_id", "provenance", "cited_by_count", "source_updated_at")
    work = Work(pk=row["id"], **{name: row[name] for name in facts})
    counted = selectors.count_as_of(work)
    return {
        "language": text(row["language"]),
        "cited_by_count_as_of": MOMENT.to_representation(counted) if counted else None,
        "references_count": cited if references_known(work, cited) else None,
    }


def detail(pk: int, count: int) -> dict | None:
    """The visible work ``pk`` as ``WorkDetailSerializer`` writes it, with the first
    ``count`` of each of its long lists; None when no visible work has this id."""
    with connection.cursor() as cursor:
        cursor.execute(_row_sql(connection.vendor), [pk])
        found = cursor.fetchone()
    if found is None:
        return None
    *values, venue, any_unlinked, cited = found
    row = _converted(values) | {"venue_name": venue, "any_unlinked": any_unlinked}
    return {
        **written(row, Bylines([row], count), PageURLs()),
        "source_created_date": DAY.to_representation(row["source_created_date"]),
        "source_updated_at": MOMENT.to_representation(row["source_updated_at"]),
        "pdf_url": web(row["pdf_url"]),
        "landing_url": web(row["landing_url"]),
        "license": text(row["license"]),
        "oa_url": web(row["oa_url"]),
        "volume": text(row["volume"]),
        "issue": text(row["issue"]),
        "first_page": text(row["first_page"]),
        "last_page": text(row["last_page"]),
        "is_retracted": row["is_retracted"],
        "embargo_until": DAY.to_representation(row["embargo_until"]),
        "counts_by_year": row["counts_by_year"],
        **_lists(pk, count),
        **_source_facts(row, cited),
    }

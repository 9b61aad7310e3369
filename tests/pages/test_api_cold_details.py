"""A cold API work or author detail: what it asks of the database and of Redis, and an
author written by a kept serializer exactly as a serializer made for it writes it."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest
import redis
from django.db import connection
from django.test import RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.request import Request

from catalogue.metrics import author_metrics_refresh
from catalogue.models import Author, Source
from pages import cache as pagecache
from pages.api.works import AuthorDetailSerializer
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory
from tests.own_redis import own_redis  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def full_author(n: int = 0) -> Author:
    """An author with every part of the detail: institution, metrics, source counts."""
    place = InstitutionFactory(name="Université de Test", ror=f"https://ror.org/{n}", type="")
    author = AuthorFactory(
        display_name="Ada Lovelace",
        orcid=f"0000-0002-1825-009{n}",
        openalex_id=f"A{n}",
        alternative_names=["A. Lovelace"],
        last_known_institution=place,
        counts_source=Source.OPENALEX,
        counts_as_of=datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
        source_works_count=12,
        source_cited_by_count=300,
        source_mean_citedness=1.5,
        source_counts_by_year=[{"year": 2024, "works": 3, "citations": 20}],
    )
    for year, cited in [(2019, 4), (2021, None), (2023, 12)]:
        work = WorkFactory(publication_date=date(year, 1, 1), cited_by_count=cited)
        AuthorshipFactory(work=work, author=author, position=0)
    author_metrics_refresh(author_ids=[author.pk])
    return author


def bare_author() -> Author:
    """An author with nothing but a name: no institution, metrics or source counts."""
    return AuthorFactory(display_name="", orcid=None)


def expected(author: Author, path: str) -> dict:
    request = Request(RequestFactory().get(path))
    fresh = Author.objects.select_related("last_known_institution", "metrics").get(pk=author.pk)
    return json.loads(json.dumps(AuthorDetailSerializer(fresh, context={"request": request}).data))


def placed_author() -> Author:
    """An author with an institution and no metrics."""
    return AuthorFactory(last_known_institution=InstitutionFactory(homepage_url="ftp://x"))


def test_author_details_in_a_row_are_written_as_a_new_serializer_writes_each(client):
    authors = [full_author(0), bare_author(), full_author(1), placed_author(), bare_author()]
    for author in [*authors, authors[0]]:  # each after another kind, the first twice
        path = f"/api/v1/authors/{author.pk}/"
        client.cookies.clear()
        assert client.get(path).json() == expected(author, path)


def test_merged_deleted_and_unknown_authors_are_not_found(client):
    kept = bare_author()
    merged, deleted = AuthorFactory(merged_into=kept), AuthorFactory(is_deleted=True)
    for pk in (merged.pk, deleted.pk, 987654):
        response = client.get(f"/api/v1/authors/{pk}/")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == "Not found."


def test_a_cold_author_detail_reads_one_row(client, django_assert_num_queries):
    author = full_author()
    with django_assert_num_queries(1):
        assert client.get(f"/api/v1/authors/{author.pk}/").status_code == 200


def test_a_cold_work_detail_reads_its_authors_ids_then_three_queries(client):
    work = WorkFactory()
    for position in range(3):
        AuthorshipFactory(work=work, position=position)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/v1/works/{work.pk}/").status_code == 200
    # the authors the ETag is made of (alone: no join, no order), the row, names, lists
    assert len(queries) == 4
    first = queries.captured_queries[0]["sql"].upper()
    assert "JOIN" not in first and "ORDER BY" not in first
    assert sorted(pagecache.work_authors(work.pk)) == sorted(
        ("author", pk) for pk in work.authorships.values_list("author_id", flat=True)
    )


@pytest.fixture
def redis_commands(own_redis, monkeypatch):  # noqa: F811
    """The site's cache on a Redis of the test's own, and every command sent to it."""
    sent: list[str] = []
    original = redis.Redis.execute_command

    def counting(self, *args, **options):
        sent.append(str(args[0]).upper())
        return original(self, *args, **options)

    caches = {
        "default": {
            "BACKEND": "config.cache.FallbackRedisCache",
            "LOCATION": own_redis.url,
            "OPTIONS": {"socket_connect_timeout": 1, "RETRY_AFTER": 0},
        }
    }
    with override_settings(CACHES=caches):
        monkeypatch.setattr(redis.Redis, "execute_command", counting)
        yield sent


@pytest.mark.parametrize("kind", ["works", "authors"])
def test_a_cold_detail_makes_three_round_trips_to_redis(client, redis_commands, kind):
    authors = [full_author(n) for n in range(2)]
    if kind == "works":
        paths = [f"/api/v1/works/{a.authorships.first().work_id}/" for a in authors]
    else:
        paths = [f"/api/v1/authors/{a.pk}/" for a in authors]
    assert client.get(paths[0]).status_code == 200  # the server learns the scripts
    redis_commands.clear()
    first = client.get(paths[1])
    assert first.status_code == 200
    # the request logged by the throttle, the page versions (read and given in one
    # script), and the ETag's first sight noted: its versions are new, so it is not
    # looked up first
    assert redis_commands == ["EVALSHA", "EVALSHA", "SET"]
    client.cookies.clear()
    again = client.get(paths[1], HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["Last-Modified"] == first["Last-Modified"]


def test_an_answer_asked_again_reads_when_it_was_first_seen_and_notes_nothing(
    client, redis_commands
):
    path = f"/api/v1/authors/{full_author(0).pk}/"
    first = client.get(path)
    redis_commands.clear()
    client.cookies.clear()
    again = client.get(path)
    assert again.status_code == 200
    assert again["ETag"] == first["ETag"] and again["Last-Modified"] == first["Last-Modified"]
    # the throttle's log, the page versions, and when the ETag was first seen
    assert redis_commands == ["EVALSHA", "EVALSHA", "GET"]

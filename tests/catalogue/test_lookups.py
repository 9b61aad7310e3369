"""``__in`` with a list: the same rows everywhere; on PostgreSQL, one array parameter."""

from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.lookups import ONE_PARAMETER_FROM
from catalogue.models import Authorship, Work
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db
on_postgres = connection.vendor == "postgresql"


def sql_of(queryset) -> str:
    with CaptureQueriesContext(connection) as captured:
        list(queryset)
    return captured.captured_queries[-1]["sql"]


def test_lists_of_values_find_the_same_rows_as_before():
    old, new, other = (
        WorkFactory(title="Alpha", publication_date=date(2001, 5, 1)),
        WorkFactory(title="Beta", publication_date=date(2020, 1, 2)),
        WorkFactory(title="Gamma", publication_date=date(2021, 3, 4)),
    )
    assert set(Work.objects.filter(pk__in=[old.pk, new.pk, None])) == {old, new}
    assert set(Work.objects.filter(title__in=["Beta", "Gamma", "Delta"])) == {new, other}
    assert set(Work.objects.filter(publication_date__in=[date(2001, 5, 1)])) == {old}
    assert list(Work.objects.filter(pk__in=[])) == []
    assert list(Work.objects.filter(pk__in=[None])) == []
    assert set(Work.objects.exclude(pk__in=[old.pk])) == {new, other}


def test_related_lists_take_records_or_ids_and_subqueries_still_work():
    author, stranger = AuthorFactory(), AuthorFactory()
    mine = AuthorshipFactory(author=author)
    AuthorshipFactory(author=stranger)
    assert list(Authorship.objects.filter(author__in=[author])) == [mine]
    assert list(Authorship.objects.filter(author_id__in=[author.pk, -5])) == [mine]
    works = Work.objects.filter(pk=mine.work_id).values("pk")
    assert list(Authorship.objects.filter(work__in=works)) == [mine]


def test_a_list_longer_than_the_parameter_limit_is_read():
    work = WorkFactory()
    assert Work.objects.filter(pk__in=list(range(-70_000, 0)) + [work.pk]).count() == 1
    author = AuthorFactory()
    mine = AuthorshipFactory(author=author)
    assert list(Authorship.objects.filter(author_id__in=[*range(-70_000, 0), author.pk])) == [mine]


@pytest.mark.skipif(not on_postgres, reason="the array parameter is PostgreSQL's")
def test_a_long_list_is_one_parameter_whatever_its_length():
    work = WorkFactory()
    short = sql_of(Work.objects.filter(pk__in=[work.pk, -1]))
    long = sql_of(Work.objects.filter(pk__in=list(range(-ONE_PARAMETER_FROM, 0)) + [work.pk]))
    longer = sql_of(Work.objects.filter(pk__in=list(range(-5 * ONE_PARAMETER_FROM, 0))))
    assert " IN (" in short and "ANY(" not in short
    assert "= ANY(" in long
    assert long.split("ANY(")[0] == longer.split("ANY(")[0]
    subquery = sql_of(Authorship.objects.filter(work__in=Work.objects.values("pk")))
    assert " IN (SELECT" in subquery

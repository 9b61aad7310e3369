"""Queries built once and run again with new values give what the ORM gives each time."""

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from catalogue.models import Author, AuthorMetrics
from config.compiled import Compiled
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory

pytestmark = pytest.mark.django_db


def _users(names):
    return [
        get_user_model().objects.create(username=name, is_staff=name.startswith("s"))
        for name in names
    ]


def _staff_around(low: int, high: int):
    return (
        get_user_model()
        .objects.filter(pk__gte=low, pk__lte=high)
        .order_by()
        .values("is_staff")
        .annotate(count=Count("pk"), named=Count("pk", filter=Q(username__startswith="s")))
        .order_by("is_staff")
    )


def test_each_run_takes_its_own_values():
    users = _users(["sam", "ann", "sue", "bob", "sid"])
    compiled = Compiled(_staff_around, "low", "high")
    for low, high in [
        (users[0].pk, users[4].pk),
        (users[1].pk, users[2].pk),
        (users[3].pk, users[3].pk),
    ]:
        expected = list(_staff_around(low, high))
        assert compiled.rows(low=low, high=high) == expected
    assert compiled.rows(low=users[4].pk + 1, high=users[4].pk + 9) == []


def test_the_rows_come_back_as_instances():
    users = _users(["ann", "bob"])
    compiled = Compiled(lambda user: get_user_model().objects.filter(pk=user), "user")
    found = compiled.instances(user=users[1].pk)
    assert found == [users[1]]
    assert found[0].username == "bob" and not found[0]._state.adding


def test_a_value_the_query_does_not_take_as_a_parameter_stops_it():
    _users(["ann"])
    ignored = Compiled(lambda user: get_user_model().objects.filter(pk__gt=0).values("pk"), "user")
    with pytest.raises(ValueError, match="user"):
        ignored.rows(user=1)


def _authors_with_places(author: int):
    return (
        Author.objects.filter(pk__gte=author)
        .select_related("last_known_institution", "metrics")
        .annotate(works_held=Count("authorships"))
        .order_by("pk")
    )


def test_instances_carry_the_related_rows_and_annotations_the_orm_gives(
    django_assert_num_queries,
):
    placed = AuthorFactory(last_known_institution=InstitutionFactory(name="ETH Zürich"))
    AuthorMetrics.objects.create(author=placed, works_count=3, citations=12)
    unplaced = AuthorFactory(last_known_institution=None)
    AuthorshipFactory(author=unplaced)
    compiled = Compiled(_authors_with_places, "author")
    compiled.instances(author=placed.pk)  # built once

    for first in (placed.pk, unplaced.pk):
        expected = list(_authors_with_places(first))
        with django_assert_num_queries(1):
            found = compiled.instances(author=first)
            assert found == expected
            for mine, theirs in zip(found, expected, strict=True):
                assert mine.works_held == theirs.works_held
                assert mine.last_known_institution == theirs.last_known_institution
                assert getattr(mine, "metrics", None) == getattr(theirs, "metrics", None)
                assert mine.created_at == theirs.created_at  # through the converters
    assert found[0].last_known_institution is None and found[0].works_held == 1


def test_a_query_of_values_has_no_instances():
    ids = Compiled(lambda user: get_user_model().objects.filter(pk=user).values("pk"), "user")
    with pytest.raises(ValueError, match="no model"):
        ids.instances(user=1)

"""External ids are unique where present, and rows keep their invariants."""

import pytest
from django.db import IntegrityError, transaction

from catalogue.models import Authorship, MergeCandidate, Source
from graph.models import CoauthorEdge
from profiles.models import Claim
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory

pytestmark = pytest.mark.django_db


def refused(factory, **kwargs):
    with pytest.raises(IntegrityError), transaction.atomic():
        factory(**kwargs)


@pytest.mark.parametrize(
    ("field", "value"),
    [("doi", "10.1000/xyz"), ("arxiv_id", "2101.00001"), ("openalex_id", "W123")],
)
def test_second_work_with_the_same_external_id_is_refused(field, value):
    WorkFactory(**{field: value})
    refused(WorkFactory, **{field: value})


@pytest.mark.parametrize("field", ["doi", "arxiv_id", "openalex_id"])
def test_works_without_the_external_id_are_fine(field):
    WorkFactory(**{field: None})
    WorkFactory(**{field: None})
    WorkFactory(**{field: ""})
    WorkFactory(**{field: ""})


@pytest.mark.parametrize(
    ("field", "value"), [("orcid", "0000-0002-1825-0097"), ("openalex_id", "A1")]
)
def test_author_external_ids_are_unique_where_present(field, value):
    AuthorFactory(**{field: value})
    AuthorFactory(**{field: None})
    AuthorFactory(**{field: None})
    refused(AuthorFactory, **{field: value})


def test_an_author_appears_once_per_work():
    authorship = AuthorshipFactory()
    refused(AuthorshipFactory, work=authorship.work, author=authorship.author, position=1)


def test_authorship_confidence_lies_between_zero_and_one():
    refused(AuthorshipFactory, confidence=1.5)
    assert Authorship.objects.count() == 0


def test_coauthor_edge_is_stored_once_with_the_lower_id_first():
    a, b = sorted([AuthorFactory(), AuthorFactory()], key=lambda x: x.pk)
    CoauthorEdge.objects.create(author_low=a, author_high=b, joint_works=1)
    refused(CoauthorEdge.objects.create, author_low=a, author_high=b, joint_works=2)
    refused(CoauthorEdge.objects.create, author_low=b, author_high=a, joint_works=1)


def test_a_record_has_at_most_one_approved_claim():
    author = AuthorFactory()
    Claim.objects.create(user=UserFactory(), author=author, method="evidence", status="approved")
    Claim.objects.create(user=UserFactory(), author=author, method="evidence", status="disputed")
    refused(
        Claim.objects.create,
        user=UserFactory(),
        author=author,
        method="evidence",
        status="approved",
    )


def test_a_merge_candidate_names_one_pair_of_one_kind():
    left, right = WorkFactory(), WorkFactory()
    MergeCandidate.objects.create(kind="work", work_a=left, work_b=right, reason="same title")
    refused(
        MergeCandidate.objects.create,
        kind="author",
        work_a=left,
        work_b=right,
        reason="wrong kind",
    )


def test_merged_record_cannot_point_at_itself():
    work = WorkFactory()
    work.merged_into = work
    with pytest.raises(IntegrityError), transaction.atomic():
        work.save()


def test_source_choices_cover_every_provenance():
    assert {choice.value for choice in Source} == {"openalex", "arxiv", "claim", "staff"}

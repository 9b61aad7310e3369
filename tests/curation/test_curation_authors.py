"""Curation of authors: merges and splits, their previews, and undoing them."""

import pytest

import curation
from catalogue.models import (
    AuditEvent,
    Author,
    AuthorInstitution,
    Authorship,
    LinkConstraint,
    MergeCandidate,
    SourceRecord,
    Work,
)
from tests.curation.curation_records import authorships, ingest, openalex_work
from tests.factories import (
    AuthorFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


# Authors: merge -----------------------------------------------------------------


def test_author_merge_preview_shows_what_moves_and_what_conflicts(two_adas):
    ada, namesake = two_adas
    preview = curation.author_merge_preview(source=namesake, target=ada)
    assert [w.title for w in preview["works_moving"]] == ["The namesake's work"]
    assert [w.title for w in preview["conflicts"]] == ["Shared work"]
    assert (preview["affiliations_moving"], preview["affiliations_duplicate"]) == (1, 1)
    assert preview["source_records"] == 1
    assert preview["problems"] == []
    assert curation.author_merge_preview(source=ada, target=ada)["problems"]


def test_author_merge_moves_records_and_remembers_the_decision(two_adas, staff):
    ada, namesake = two_adas
    event = curation.author_merge(source=namesake, target=ada, actor=staff)

    namesake.refresh_from_db()
    ada.refresh_from_db()
    assert namesake.merged_into == ada
    assert set(ada.works.values_list("title", flat=True)) == {
        "Ada's own work",
        "Shared work",
        "The namesake's work",
    }
    assert not Authorship.objects.filter(author=namesake).exists()
    assert AuthorInstitution.objects.filter(author=ada).count() == 2
    assert SourceRecord.objects.get().author == ada
    assert ada.last_known_institution is not None  # filled from the namesake
    assert LinkConstraint.objects.filter(
        kind="must_link", author=ada, other_author=namesake
    ).exists()
    assert (event.actor, event.action, event.target_id) == (staff, "author_merge", str(ada.pk))
    deleted = event.data["deleted_authorships"]
    assert [(d["source"], d["confidence"], len(d["institutions"])) for d in deleted] == [
        ("arxiv", 0.6, 1)
    ]


def test_author_merge_then_undo_restores_every_authorship_exactly(two_adas, staff):
    ada, namesake = two_adas
    before = authorships()
    affiliations = sorted(
        AuthorInstitution.objects.values_list("pk", "author_id", "institution_id", "years")
    )
    event = curation.author_merge(source=namesake, target=ada, actor=staff)

    undo = curation.audit_undo(event=event, actor=staff)

    assert authorships() == before
    assert (
        sorted(AuthorInstitution.objects.values_list("pk", "author_id", "institution_id", "years"))
        == affiliations
    )
    assert SourceRecord.objects.get().author_id == namesake.pk
    namesake.refresh_from_db()
    ada.refresh_from_db()
    assert namesake.merged_into is None
    assert ada.last_known_institution is None
    assert not LinkConstraint.objects.exists()
    assert (undo.actor, undo.data["undoes"]) == (staff, event.pk)
    with pytest.raises(ValueError, match="already been undone"):
        curation.audit_undo(event=event, actor=staff)


def test_merging_an_author_candidate_delegates_to_author_merge(two_adas, staff):
    ada, namesake = two_adas
    candidate = MergeCandidate.objects.create(
        kind="author", author_a=ada, author_b=namesake, reason="Same name"
    )
    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)
    candidate.refresh_from_db()
    namesake.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("merged", staff)
    assert namesake.merged_into == ada
    assert event.action == "author_merge"
    curation.audit_undo(event=event, actor=staff)
    candidate.refresh_from_db()
    assert candidate.status == "open"


def test_merging_into_a_merged_record_is_refused(two_adas, staff):
    ada, namesake = two_adas
    curation.author_merge(source=namesake, target=ada, actor=staff)
    other = AuthorFactory()
    with pytest.raises(ValueError, match="merge into that record instead"):
        curation.author_merge(source=other, target=namesake, actor=staff)
    with pytest.raises(ValueError, match="cannot be merged into itself"):
        curation.author_merge(source=other, target=other, actor=staff)


# Authors: split -------------------------------------------------------------------


@pytest.fixture
def hopper_works():
    first = openalex_work(1, "Compilers for everyone", [("A5000000007", "Grace Hopper")])
    second = openalex_work(
        2, "Sea shanties and lattices", [("A5000000007", "Grace Hopper"), (None, "Ann Other")]
    )
    ingest("work", first, second)
    return first, second


def test_split_moves_the_works_to_a_new_record(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    preview = curation.author_split_preview(author=grace, work_ids=[shanties.pk])
    assert [w.pk for w in preview["works_moving"]] == [shanties.pk]
    assert preview["works_staying"] == 1

    new = curation.author_split(author=grace, work_ids=[shanties.pk], actor=staff)

    assert new.display_name == "Grace Hopper" and new.openalex_id is None
    assert list(new.works.all()) == [shanties]
    assert list(grace.works.values_list("title", flat=True)) == ["Compilers for everyone"]
    assert LinkConstraint.objects.filter(kind="cannot_link", author=grace, work=shanties).exists()
    assert LinkConstraint.objects.filter(
        kind="cannot_link", author=grace, other_author=new
    ).exists()
    event = AuditEvent.objects.get(action="author_split")
    assert (event.actor, event.data["new_author"]) == (staff, new.pk)


def test_after_a_split_a_reimport_does_not_put_the_works_back(hopper_works, staff):
    first, second = hopper_works
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    new = curation.author_split(
        author=grace, work_ids=[shanties.pk], actor=staff, new_name="G. Hopper"
    )

    # OpenAlex still credits A5000000007 with both works; the records changed, so they are rewritten.
    ingest("work", {**first, "cited_by_count": 40}, {**second, "cited_by_count": 41})

    assert not Authorship.objects.filter(author=grace, work=shanties).exists()
    assert Authorship.objects.filter(author=new, work=shanties).exists()
    assert Authorship.objects.filter(author=grace, work__openalex_id="W900000001").exists()
    assert not MergeCandidate.objects.filter(
        author_a__in=[grace, new], author_b__in=[grace, new]
    ).exists()


def test_undoing_a_split_gives_the_works_back(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    before = authorships()
    new = curation.author_split(author=grace, work_ids=[shanties.pk], actor=staff)
    curation.audit_undo(event=AuditEvent.objects.get(action="author_split"), actor=staff)
    assert authorships() == before
    assert not Author.objects.filter(pk=new.pk).exists()
    assert not LinkConstraint.objects.exists()


def test_a_split_needs_works_of_that_author(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    with pytest.raises(ValueError, match="at least one work"):
        curation.author_split(author=grace, work_ids=[], actor=staff)
    with pytest.raises(ValueError, match="is not an author of work"):
        curation.author_split(author=grace, work_ids=[WorkFactory().pk], actor=staff)

"""Curation of works: merge candidates decided, works merged, decisions undone."""

import pytest

import curation
from catalogue.models import (
    AuditEvent,
    LinkConstraint,
    MergeCandidate,
    Work,
)
from ingestion.importing.requesting import Via, import_run_request
from tests.curation.curation_records import authorships, ingest

pytestmark = pytest.mark.django_db


# Merge candidates: works --------------------------------------------------------


def test_two_works_with_the_same_title_become_a_candidate(work_pair):
    candidate = MergeCandidate.objects.get()
    assert candidate.kind == "work"
    assert {candidate.work_a.openalex_id, candidate.work_b.arxiv_id} == {"W900000001", "2006.00001"}


def test_keep_apart_stores_a_constraint_and_the_next_import_raises_no_candidate(work_pair, staff):
    published, preprint = work_pair
    candidate = MergeCandidate.objects.get()
    event = curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)

    candidate.refresh_from_db()
    assert candidate.status == MergeCandidate.Status.KEPT_APART
    assert candidate.decided_by == staff
    constraint = LinkConstraint.objects.get()
    assert constraint.kind == LinkConstraint.Kind.CANNOT_LINK
    assert {constraint.work_id, constraint.other_work_id} == {
        candidate.work_a_id,
        candidate.work_b_id,
    }
    assert constraint.source == "staff"
    assert (event.actor, event.action) == (staff, "merge_candidate_keep_apart")

    # Both sources send updated records: they are written again, and the pair stays apart.
    ingest("work", {**published, "cited_by_count": 9})
    ingest("arxiv", {**preprint, "summary": "We study widgets again."})
    assert Work.objects.visible().count() == 2
    assert MergeCandidate.objects.count() == 1
    assert not MergeCandidate.objects.filter(status=MergeCandidate.Status.OPEN).exists()


def test_a_candidate_is_decided_once(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)
    with pytest.raises(ValueError, match="already decided"):
        curation.merge_candidate_merge(candidate=candidate, actor=staff)


def test_merging_works_moves_what_the_kept_one_lacks_and_imports_follow(work_pair, staff):
    published, preprint = work_pair
    candidate = MergeCandidate.objects.get()
    kept, other = candidate.work_a, candidate.work_b

    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)

    kept.refresh_from_db()
    other.refresh_from_db()
    assert other.merged_into == kept
    assert kept.arxiv_id == "2006.00001" and other.arxiv_id is None  # the unique id moved
    assert kept.abstract == "We study widgets."  # a blank filled from the other
    names = set(kept.authorships.values_list("author__display_name", flat=True))
    assert names == {"Ada Lovelace", "Charles Babbage"}
    assert set(kept.source_records.values_list("source", flat=True)) == {"openalex", "arxiv"}
    assert LinkConstraint.objects.filter(
        kind="must_link", work=kept, other_work=other, created_by=staff
    ).exists()
    candidate.refresh_from_db()
    assert candidate.status == MergeCandidate.Status.MERGED
    assert (event.action, event.actor) == ("work_merge", staff)

    ingest("arxiv", {**preprint, "summary": "A revised abstract."})
    ingest("work", {**published, "cited_by_count": 12})
    assert Work.objects.visible().count() == 1
    assert MergeCandidate.objects.filter(status="open").count() == 0
    assert set(kept.authorships.values_list("author__display_name", flat=True)) == names


def test_undoing_a_work_merge_puts_both_works_back(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    before = authorships()
    kept_id, other_id = candidate.work_a_id, candidate.work_b_id
    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)

    curation.audit_undo(event=event, actor=staff)

    kept, other = Work.objects.get(pk=kept_id), Work.objects.get(pk=other_id)
    assert other.merged_into is None
    assert (kept.arxiv_id, other.arxiv_id) == (None, "2006.00001")
    assert kept.abstract == ""
    assert authorships() == before
    assert set(other.source_records.values_list("source", flat=True)) == {"arxiv"}
    assert not LinkConstraint.objects.exists()
    candidate.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("open", None)


def test_keep_apart_can_be_undone_and_the_candidate_reopens(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    event = curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)
    undo = curation.audit_undo(event=event, actor=staff)
    candidate.refresh_from_db()
    assert candidate.status == "open"
    assert not LinkConstraint.objects.exists()
    assert (undo.action, undo.actor, undo.data["undoes"]) == ("audit_event_undo", staff, event.pk)


def test_only_decisions_with_undo_data_can_be_undone(staff):
    run = import_run_request(
        source="openalex",
        kind="author",
        parameters={"id": "A5017898742"},
        requested_by=staff,
        via=Via.ADMIN,
    )
    event = AuditEvent.objects.get(action="import_run_create", target_id=str(run.pk))
    with pytest.raises(ValueError, match="cannot be undone"):
        curation.audit_undo(event=event, actor=staff)

"""Staff decide a split proposal in the admin: split the record into its groups, or keep it."""

import pytest
from django.urls import reverse

import curation
from catalogue.models import AuditEvent, Authorship, LinkConstraint, SplitProposal
from ingestion.people.splits import split_records
from tests.factories import UserFactory
from tests.ingestion.people.builders import two_people_record

pytestmark = pytest.mark.django_db


def admin(name: str, *args) -> str:
    return reverse(f"admin:publications_{name}", args=args)


@pytest.fixture
def proposal():
    daniel, old, new, *_ = two_people_record()
    assert split_records([daniel.pk]) == 1
    return SplitProposal.objects.get(), daniel, old, new


def held(author) -> set[int]:
    return set(Authorship.objects.filter(author=author).values_list("work_id", flat=True))


def test_the_list_and_the_page_show_the_groups_with_their_works(staff_client, proposal):
    found, daniel, old, new = proposal
    listing = staff_client.get(admin("splitproposal_changelist")).content.decode()
    assert "Daniel Okafor" in listing
    assert "5 + 4" in listing
    page = staff_client.get(admin("splitproposal_change", found.pk)).content.decode()
    for work in old + new:
        assert work.title in page
    assert "stays on the record" in page and "becomes a new record" in page
    assert admin("splitproposal_split", found.pk) in page
    assert admin("splitproposal_keep_whole", found.pk) in page


def test_staff_split_makes_a_new_record_of_the_smaller_group(staff_client, staff, proposal):
    found, daniel, old, new = proposal
    response = staff_client.post(admin("splitproposal_split", found.pk))
    assert response.status_code == 302
    found.refresh_from_db()
    assert (found.status, found.decided_by) == (SplitProposal.Status.SPLIT, staff)
    assert held(daniel) == {w.pk for w in old}
    split_off = AuditEvent.objects.get(action="author_split")
    new_record = split_off.data["new_author"]
    assert held(new_record) == {w.pk for w in new}
    # Later imports keep the moved works off the record, and the two records apart.
    assert LinkConstraint.objects.filter(
        kind=LinkConstraint.Kind.CANNOT_LINK, author=daniel, other_author_id=new_record
    ).exists()
    event = AuditEvent.objects.get(action="split_proposal_split")
    assert (event.actor, event.data["new_records"][0]["author"]) == (staff, new_record)
    # The split is undone from the audit trail like any other.
    curation.audit_undo(event=split_off, actor=staff)
    assert held(daniel) == {w.pk for w in old + new}


def test_staff_keep_a_record_whole(staff_client, staff, proposal):
    found, daniel, old, new = proposal
    response = staff_client.post(admin("splitproposal_keep_whole", found.pk))
    assert response.status_code == 302
    found.refresh_from_db()
    assert found.status == SplitProposal.Status.KEPT_WHOLE
    assert held(daniel) == {w.pk for w in old + new}
    event = AuditEvent.objects.get(action="split_proposal_keep_whole")
    assert split_records([daniel.pk]) == 0  # not proposed again
    curation.audit_undo(event=event, actor=staff)
    found.refresh_from_db()
    assert found.status == SplitProposal.Status.OPEN


def test_a_decided_proposal_cannot_be_decided_again(staff_client, proposal):
    found, daniel, *_ = proposal
    staff_client.post(admin("splitproposal_keep_whole", found.pk))
    staff_client.post(admin("splitproposal_split", found.pk))
    found.refresh_from_db()
    assert found.status == SplitProposal.Status.KEPT_WHOLE
    assert not AuditEvent.objects.filter(action="author_split").exists()


def test_the_list_actions_decide_several_proposals(staff_client, proposal):
    found, *_ = proposal
    staff_client.post(
        admin("splitproposal_changelist"),
        {"action": "keep_whole_selected", "_selected_action": [found.pk]},
    )
    found.refresh_from_db()
    assert found.status == SplitProposal.Status.KEPT_WHOLE


def test_staff_without_the_change_permission_cannot_decide(client, proposal):
    found, daniel, old, new = proposal
    client.force_login(UserFactory(is_staff=True))
    response = client.post(admin("splitproposal_split", found.pk))
    assert response.status_code == 403
    found.refresh_from_db()
    assert found.status == SplitProposal.Status.OPEN
    assert held(daniel) == {w.pk for w in old + new}

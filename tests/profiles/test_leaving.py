""" "Not mine" is an identity request applied at once: audited, kept by imports, undoable."""

import pytest
from django.urls import reverse

import curation
from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    IdentityRequest,
    LinkConstraint,
    Work,
)
from profiles.claims import ownership
from profiles.models import Profile
from tests.curation.curation_records import ingest, openalex_work
from tests.factories import InstitutionFactory
from tests.people import holds, person

pytestmark = pytest.mark.django_db

ADA = "A5000000001"


def namesakes_paper(cited: int = 3) -> dict:
    return openalex_work(
        2,
        "A namesake's paper",
        [("A5000000009", "Charles Babbage"), (ADA, "Ada Lovelace")],
        cited_by_count=cited,
    )


@pytest.fixture
def record():
    """Ada, imported from OpenAlex with her own paper and one OpenAlex gave her by mistake."""
    ingest("work", openalex_work(1, "A paper that is mine", [(ADA, "Ada Lovelace")]))
    ingest("work", namesakes_paper())
    return Author.objects.get(openalex_id=ADA)


@pytest.fixture
def ada(record):
    user = person("ada")
    holds(user, record)
    return user


def namesake_work() -> Work:
    return Work.objects.get(title="A namesake's paper")


def test_not_mine_is_a_request_applied_at_once_with_the_links_evidence(record, ada, client):
    work = namesake_work()
    link = Authorship.objects.get(author=record, work=work)
    assert link.evidence == "OpenAlex author id"
    client.force_login(ada)
    response = client.post(reverse("profiles:work_disown", args=[record.pk, work.pk]))
    assert response.status_code == 302

    asked = IdentityRequest.objects.get(kind="leave_work")
    event = AuditEvent.objects.get(action="work_disown")
    assert (asked.author, asked.work, asked.status, asked.requested_by) == (
        record,
        work,
        "applied",
        ada,
    )
    assert asked.audit_event == event
    assert asked.evidence == "Was on the record by: OpenAlex author id"
    assert LinkConstraint.objects.get(author=record, work=work).kind == "cannot_link"

    ingest("work", namesakes_paper(cited=9))  # OpenAlex still lists Ada on it
    assert namesake_work().cited_by_count == 9
    assert not Authorship.objects.filter(author=record, work=work).exists()
    assert list(work.unlinked_authorships.values_list("position", "raw_name")) == [
        (1, "Ada Lovelace")
    ]


def test_the_same_request_made_through_the_identity_service(record, ada):
    work = namesake_work()
    asked = curation.identity_request_make(author=record, user=ada, kind="leave_work", work=work)
    assert (asked.kind, asked.status, asked.work) == ("leave_work", "applied", work)
    assert not Authorship.objects.filter(author=record, work=work).exists()


def test_staff_undo_puts_the_work_back_exactly(record, ada, staff):
    work = namesake_work()
    link = Authorship.objects.get(author=record, work=work)
    place = InstitutionFactory()
    link.institutions.add(place)
    Authorship.objects.filter(pk=link.pk).update(is_corresponding=True)
    profile = Profile.objects.get(user=ada)
    ownership.work_pin(profile=profile, work=work, actor=ada)
    ownership.work_disown(profile=profile, work=work, actor=ada, reason="Another Ada")
    asked = IdentityRequest.objects.get(kind="leave_work")

    curation.audit_undo(event=asked.audit_event, actor=staff)

    back = Authorship.objects.get(author=record, work=work)
    assert (back.position, back.raw_name, back.source, back.evidence, back.is_corresponding) == (
        1,
        "Ada Lovelace",
        "openalex",
        "OpenAlex author id",
        True,
    )
    assert list(back.institutions.all()) == [place]
    assert profile.pinned_works.filter(pk=work.pk).exists()
    assert not LinkConstraint.objects.filter(author=record, work=work).exists()
    asked.refresh_from_db()
    assert asked.status == "undone"


def test_put_back_undoes_the_request_and_staff_find_nothing_left_to_undo(record, ada, staff):
    work = namesake_work()
    profile = Profile.objects.get(user=ada)
    ownership.work_disown(profile=profile, work=work, actor=ada)
    ownership.work_restore(profile=profile, work=work, actor=ada)
    asked = IdentityRequest.objects.get(kind="leave_work")
    assert asked.status == "undone"
    with pytest.raises(ValueError, match="put back"):
        curation.audit_undo(event=asked.audit_event, actor=staff)
    assert Authorship.objects.filter(author=record, work=work).count() == 1


def test_nobody_else_takes_a_work_off_the_record(record, ada, client):
    work = namesake_work()
    client.force_login(person("someone"))
    response = client.post(reverse("profiles:work_disown", args=[record.pk, work.pk]))
    assert response.status_code == 403
    assert Authorship.objects.filter(author=record, work=work).exists()
    assert not IdentityRequest.objects.exists()

"""An owner's requests about who is who: applied at once on ORCID proof, else staff decide.

Every request is audited; what applying it changed is undone from its audit event,
and the request then says so.
"""

import pytest
from django.urls import reverse

import curation
from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    IdentityRequest,
    LinkConstraint,
    MergeCandidate,
    UnlinkedAuthorship,
)
from curation.identity_requests import IdentityRequestError, identity_request_make
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.people import ORCIDS, OTHER_ORCID, person, with_orcid

pytestmark = pytest.mark.django_db

JOIN_RECORD, JOIN_BYLINE = "join_record", "join_byline"


@pytest.fixture
def namesake():
    """A record with an OpenAlex id the engine paired with the owner's, and one work."""
    other = AuthorFactory(display_name="G. Hopper", openalex_id="A5000000077")
    AuthorshipFactory(author=other, work=WorkFactory(title="Compilers for everyone"))
    return other


@pytest.fixture
def candidate(author, namesake):
    return MergeCandidate.objects.create(
        kind="author",
        author_a=author,
        author_b=namesake,
        reason="may be one person: initials agree, 1 shared co-author",
        score=0.71,
    )


@pytest.fixture
def unlinked():
    """A name no record holds, second on a work's byline."""
    work = WorkFactory(title="A byline left open")
    AuthorshipFactory(work=work, position=0)
    UnlinkedAuthorship.objects.create(work=work, position=1, raw_name="Hopper, G.", source="arxiv")
    return work


def ask(owner, author, **target):
    return identity_request_make(author=author, user=owner, **target)


def test_a_join_without_id_proof_waits_for_staff_who_merge_it(
    author, owner, namesake, candidate, staff
):
    asked = ask(owner, author, kind=JOIN_RECORD, other_author=namesake)
    assert (asked.status, asked.id_level, asked.requested_by) == ("pending", False, owner)
    assert asked.evidence == "may be one person: initials agree, 1 shared co-author (score 0.71)"
    assert Author.objects.get(pk=namesake.pk).merged_into is None  # nothing changed yet
    made = AuditEvent.objects.get(action="identity_request")
    assert (made.actor, made.data["kind"]) == (owner, JOIN_RECORD)

    event = curation.identity_request_approve(identity_request=asked, actor=staff)

    asked.refresh_from_db()
    assert (asked.status, asked.decided_by, asked.audit_event) == ("applied", staff, event)
    assert (event.action, event.actor) == ("author_merge", staff)
    assert Author.objects.get(pk=namesake.pk).merged_into == author
    assert set(author.works.values_list("title", flat=True)) >= {"Compilers for everyone"}
    assert MergeCandidate.objects.get(pk=candidate.pk).status == "merged"


def test_undoing_an_approved_join_restores_both_records(author, owner, namesake, staff):
    asked = ask(owner, author, kind=JOIN_RECORD, other_author=namesake)
    curation.identity_request_approve(identity_request=asked, actor=staff)
    asked.refresh_from_db()

    curation.audit_undo(event=asked.audit_event, actor=staff)

    asked.refresh_from_db()
    assert asked.status == "undone"
    assert Author.objects.get(pk=namesake.pk).merged_into is None
    assert list(namesake.works.values_list("title", flat=True)) == ["Compilers for everyone"]
    assert not author.works.filter(title="Compilers for everyone").exists()


def test_a_record_with_an_orcid_the_owner_proved_joins_at_once(author, owner):
    with_orcid(owner, OTHER_ORCID)  # the owner signed in with a second ORCID iD
    other = AuthorFactory(display_name="Grace B. Hopper", orcid=OTHER_ORCID)
    stranger_orcid = AuthorFactory(display_name="Grace Hopper", orcid=ORCIDS[0])

    asked = ask(owner, author, kind=JOIN_RECORD, other_author=other)

    assert (asked.status, asked.id_level, asked.decided_by) == ("applied", True, None)
    assert asked.audit_event.action == "author_merge"
    assert Author.objects.get(pk=other.pk).merged_into == author
    kept = LinkConstraint.objects.get(author=author, other_author=other)
    assert (kept.kind, kept.reason) == ("must_link", "Merged by the owner, on their ORCID iD")
    # An ORCID iD the owner never proved is no proof: staff decide.
    assert ask(owner, author, kind=JOIN_RECORD, other_author=stranger_orcid).status == "pending"

    curation.identity_request_undo(identity_request=asked, actor=owner)
    asked.refresh_from_db()
    assert asked.status == "undone"
    assert Author.objects.get(pk=other.pk).merged_into is None


def test_orcid_proof_does_not_override_staff_keeping_the_pair_apart(author, owner, staff):
    with_orcid(owner, OTHER_ORCID)
    other = AuthorFactory(display_name="Grace Hopper", orcid=OTHER_ORCID)
    LinkConstraint.objects.create(
        kind="cannot_link", author=other, other_author=author, source="staff", created_by=staff
    )
    assert ask(owner, author, kind=JOIN_RECORD, other_author=other).status == "pending"


def test_staff_turn_a_request_down_and_can_take_that_back(author, owner, namesake, staff):
    asked = ask(owner, author, kind=JOIN_RECORD, other_author=namesake)
    event = curation.identity_request_reject(identity_request=asked, actor=staff)
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by) == ("rejected", staff)
    assert (event.action, event.actor) == ("identity_request_reject", staff)
    assert Author.objects.get(pk=namesake.pk).merged_into is None
    with pytest.raises(ValueError, match="already decided"):
        curation.identity_request_approve(identity_request=asked, actor=staff)

    curation.audit_undo(event=event, actor=staff)
    asked.refresh_from_db()
    assert (asked.status, asked.decided_by) == ("pending", None)


def test_a_byline_join_waits_then_links_the_position_and_undo_leaves_it_open(
    author, owner, unlinked, staff
):
    asked = ask(owner, author, kind=JOIN_BYLINE, work=unlinked, position=1)
    assert (asked.status, asked.id_level) == ("pending", False)
    assert asked.evidence == "Hopper, G., author 2: name: initials agree"
    with pytest.raises(IdentityRequestError, match="asked already"):
        ask(owner, author, kind=JOIN_BYLINE, work=unlinked, position=1)

    event = curation.identity_request_approve(identity_request=asked, actor=staff)

    link = Authorship.objects.get(author=author, work=unlinked)
    assert (link.position, link.raw_name, link.source) == (1, "Hopper, G.", "claim")
    assert "checked by staff" in link.evidence
    assert not UnlinkedAuthorship.objects.filter(work=unlinked).exists()
    assert LinkConstraint.objects.get(author=author, work=unlinked).kind == "must_link"
    assert event.action == "identity_byline_join"

    curation.audit_undo(event=event, actor=staff)
    asked.refresh_from_db()
    assert asked.status == "undone"
    assert not Authorship.objects.filter(author=author, work=unlinked).exists()
    assert list(UnlinkedAuthorship.objects.values_list("position", "raw_name")) == [
        (1, "Hopper, G.")
    ]
    assert not LinkConstraint.objects.filter(author=author, work=unlinked).exists()


def test_not_me_keeps_a_candidate_apart_with_the_owner_as_the_actor(author, owner, candidate):
    event = curation.identity_candidate_refuse(author=author, candidate=candidate, user=owner)
    candidate.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("kept_apart", owner)
    kept = LinkConstraint.objects.get(author=author, other_author=candidate.author_b)
    assert kept.kind == "cannot_link" and "owner" in kept.reason
    assert (event.action, event.actor) == ("merge_candidate_keep_apart", owner)
    curation.audit_undo(event=event, actor=owner)
    assert MergeCandidate.objects.get(pk=candidate.pk).status == "open"


def test_only_the_holder_may_ask_and_only_about_their_record(
    author, owner, namesake, candidate, stranger, other_owner
):
    for who in (stranger, other_owner):
        with pytest.raises(IdentityRequestError, match="holds this record"):
            ask(who, author, kind=JOIN_RECORD, other_author=namesake)
        with pytest.raises(IdentityRequestError, match="holds this record"):
            curation.identity_candidate_refuse(author=author, candidate=candidate, user=who)
    theirs = Author.objects.get(profile__user=other_owner)
    with pytest.raises(IdentityRequestError, match="does not name your record"):
        curation.identity_candidate_refuse(author=theirs, candidate=candidate, user=other_owner)
    # A record someone holds is theirs to keep: only a claim can take it.
    with pytest.raises(IdentityRequestError, match="Someone holds"):
        ask(owner, author, kind=JOIN_RECORD, other_author=theirs)
    assert not IdentityRequest.objects.exists()


def test_staff_approve_and_turn_down_from_the_admin(client, staff, author, owner, namesake):
    first = ask(owner, author, kind=JOIN_RECORD, other_author=namesake)
    other = AuthorFactory(display_name="Grace Hopper")
    second = ask(owner, author, kind=JOIN_RECORD, other_author=other)
    client.force_login(staff)
    listed = client.get(reverse("admin:publications_identityrequest_changelist"))
    assert listed.status_code == 200 and "G. Hopper" in listed.content.decode()
    page = client.get(reverse("admin:publications_identityrequest_change", args=[first.pk]))
    assert "Approve and apply" in page.content.decode()

    client.post(reverse("admin:publications_identityrequest_approve", args=[first.pk]))
    client.post(reverse("admin:publications_identityrequest_reject", args=[second.pk]))

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == ("applied", "rejected")
    assert Author.objects.get(pk=namesake.pk).merged_into == author
    clerk = person("clerk", is_staff=True)  # staff without the change permission
    client.force_login(clerk)
    third = ask(owner, author, kind=JOIN_RECORD, other_author=AuthorFactory(display_name="Hopper"))
    response = client.post(reverse("admin:publications_identityrequest_approve", args=[third.pk]))
    assert response.status_code == 403
    third.refresh_from_db()
    assert third.status == "pending"

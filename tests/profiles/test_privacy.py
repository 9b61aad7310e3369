"""Members' conversations: kept when one side leaves, read by staff only through a report."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.urls import reverse

from catalogue.models import AuditEvent
from profiles.claims.services import claim_withdraw
from profiles.collaboration import selectors as collab_selectors
from profiles.collaboration import services as collab
from profiles.collaboration.services import CollaborationError
from profiles.models import Claim, Invitation, Message, Profile, Report
from tests.factories import grant
from tests.people import ORCIDS, person, researcher, signed_in

pytestmark = pytest.mark.django_db

MESSAGE = "Would you like to try our compiler on the climate model next month?"
REPLY = "PRIVATE-REPLY-51c: gladly, here is what we have so far."


@pytest.fixture
def sender(db):
    return researcher("ada", "Ada Lovelace", orcid=ORCIDS[0])


@pytest.fixture
def recipient(db):
    return researcher("grace", "Grace Hopper", orcid=ORCIDS[1])


@pytest.fixture
def conversation(sender, recipient):
    invitation = collab.invitation_create(
        sender=sender, profile=recipient.profile, topic="Compilers", message=MESSAGE
    )
    return collab.invitation_accept(invitation=invitation, user=recipient, reply=REPLY)


def withdraw(user) -> None:
    claim_withdraw(claim=Claim.objects.get(user=user, status=Claim.Status.APPROVED), user=user)


def test_withdrawing_a_claim_keeps_the_other_persons_conversation(conversation, sender, recipient):
    collab.message_send(invitation=conversation, user=sender, body="SENDER-NOTE-2f9 and thanks.")
    withdraw(recipient)

    kept = Invitation.objects.get(pk=conversation.pk)
    assert kept.recipient is None and kept.recipient_user == recipient
    assert list(kept.messages.values_list("body", flat=True)) == [
        REPLY,
        "SENDER-NOTE-2f9 and thanks.",
    ]
    inbox = signed_in(sender).get(reverse("profiles:inbox")).content.decode()
    assert "former holder of Grace Hopper" in inbox
    page = signed_in(sender).get(reverse("profiles:conversation", args=[kept.pk])).content.decode()
    assert "the former holder of" in page and "Grace Hopper" in page
    assert REPLY in page and "SENDER-NOTE-2f9" in page
    assert 'name="body"' not in page  # closed to new messages, still readable


def test_the_member_who_withdrew_still_reads_the_conversation(conversation, sender, recipient):
    withdraw(recipient)
    page = signed_in(recipient).get(reverse("profiles:conversation", args=[conversation.pk]))
    assert page.status_code == 200
    assert MESSAGE in page.content.decode() and REPLY in page.content.decode()


def test_a_closed_conversation_takes_no_new_message(conversation, sender, recipient):
    withdraw(recipient)
    kept = Invitation.objects.get(pk=conversation.pk)
    with pytest.raises(CollaborationError, match="closed"):
        collab.message_send(invitation=kept, user=sender, body="Still there?")
    response = signed_in(sender).post(
        reverse("profiles:conversation", args=[kept.pk]), {"body": "Still there?"}
    )
    assert response.status_code == 400
    assert not Message.objects.filter(body="Still there?").exists()


def test_a_sender_who_withdrew_is_shown_as_former_holder(conversation, sender, recipient):
    withdraw(sender)
    page = signed_in(recipient).get(reverse("profiles:conversation", args=[conversation.pk]))
    html = page.content.decode()
    assert "the former holder of" in html and "Ada Lovelace" in html and MESSAGE in html


def test_a_pending_invitation_to_a_withdrawn_record_cannot_be_answered(sender, recipient):
    invitation = collab.invitation_create(
        sender=sender, profile=recipient.profile, topic="Compilers", message=MESSAGE
    )
    withdraw(recipient)
    with pytest.raises(CollaborationError, match="no longer hold"):
        collab.invitation_accept(invitation=invitation, user=recipient)
    assert Invitation.objects.filter(pk=invitation.pk).exists()
    assert collab_selectors.unread_counts(recipient)["invites"] == 0


def test_deleting_an_account_keeps_what_the_other_person_wrote(conversation, sender, recipient):
    report = collab.report_abuse(
        reporter=recipient, invitation=conversation, reason="Asked for my home address."
    )
    sender.delete()

    kept = Invitation.objects.get(pk=conversation.pk)
    assert kept.sender is None
    assert list(kept.messages.values_list("body", flat=True)) == [REPLY]
    report.refresh_from_db()
    assert report.reported_user is None and report.reason == "Asked for my home address."
    page = signed_in(recipient).get(reverse("profiles:conversation", args=[kept.pk]))
    assert page.status_code == 200 and REPLY in page.content.decode()
    assert "This account no longer exists" in page.content.decode()


def test_a_conversation_whose_other_side_is_gone_can_still_be_reported(conversation, recipient):
    Invitation.objects.filter(pk=conversation.pk).update(sender=None)
    kept = Invitation.objects.get(pk=conversation.pk)
    report = collab.report_abuse(
        reporter=recipient, invitation=kept, reason="Threats before leaving."
    )
    assert report.reported_user is None
    assert "a deleted account invites" in report.evidence and REPLY in report.evidence


def test_deleting_the_recipients_account_keeps_the_senders_writing(conversation, sender, recipient):
    collab.message_send(invitation=conversation, user=sender, body="SENDER-NOTE-8aa first.")
    recipient.delete()
    kept = Invitation.objects.get(pk=conversation.pk)
    assert (kept.recipient, kept.recipient_user) == (None, None)
    assert kept.messages.filter(body="SENDER-NOTE-8aa first.").exists()
    assert kept.message == MESSAGE
    assert signed_in(sender).get(reverse("profiles:inbox")).status_code == 200


def test_blocking_keeps_the_conversation(conversation, sender, recipient):
    collab.block_create(blocker=recipient, blocked=sender)
    assert Invitation.objects.get(pk=conversation.pk).messages.count() == 1


# Staff ---------------------------------------------------------------------------------------


def test_the_admin_offers_no_message_or_invitation_even_to_superusers(conversation, staff):
    from django.contrib import admin

    assert not admin.site.is_registered(Message)
    assert not admin.site.is_registered(Invitation)
    client = signed_in(staff)
    for url in ("/admin/profiles/message/", "/admin/profiles/invitation/"):
        assert client.get(url).status_code == 404
    index = client.get("/admin/").content.decode()
    assert "/admin/profiles/message/" not in index and REPLY not in index


def test_staff_read_a_conversation_only_through_a_report_and_it_is_audited(conversation, recipient):
    report = collab.report_abuse(
        reporter=recipient, invitation=conversation, reason="Asked for my home address."
    )
    reviewer = grant(person("reviewer", is_staff=True), "profiles.view_report")
    client = signed_in(reviewer)

    listing = client.get(reverse("admin:profiles_report_changelist")).content.decode()
    assert REPLY not in listing
    assert not AuditEvent.objects.filter(action="report_evidence_view").exists()
    found = client.get(reverse("admin:profiles_report_changelist"), {"q": "PRIVATE-REPLY-51c"})
    assert "0 reports" in found.content.decode() or "0 results" in found.content.decode()

    page = client.get(reverse("admin:profiles_report_change", args=[report.pk]))
    assert page.status_code == 200 and REPLY in page.content.decode()
    event = AuditEvent.objects.get(action="report_evidence_view")
    assert (event.actor, event.target_type, event.target_id) == (
        reviewer,
        "profiles.report",
        str(report.pk),
    )
    client.get(reverse("admin:profiles_report_change", args=[report.pk]))
    assert AuditEvent.objects.filter(action="report_evidence_view").count() == 2


def test_a_report_cannot_be_edited_or_deleted_in_the_admin(conversation, recipient, staff):
    report = collab.report_abuse(
        reporter=recipient, invitation=conversation, reason="Asked for my home address."
    )
    client = signed_in(staff)
    url = reverse("admin:profiles_report_change", args=[report.pk])
    client.post(url, {"reason": "Rewritten", "evidence": "Rewritten"})
    report.refresh_from_db()
    assert report.reason == "Asked for my home address." and REPLY in report.evidence
    delete = reverse("admin:profiles_report_delete", args=[report.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert Report.objects.filter(pk=report.pk).exists()


# The migration that keeps both sides -----------------------------------------------------------


def test_existing_invitations_learn_who_held_which_record(conversation, sender, recipient):
    Invitation.objects.update(recipient_user=None, recipient_author=None, sender_author=None)
    migration = importlib.import_module("profiles.migrations.0003_keep_conversations")
    migration.remember_both_sides(apps, None)
    kept = Invitation.objects.get(pk=conversation.pk)
    assert kept.recipient_user == recipient
    assert kept.recipient_author == Profile.objects.get(user=recipient).author
    assert kept.sender_author == Profile.objects.get(user=sender).author


def test_an_account_deletion_removes_only_its_own_messages(conversation, sender, recipient):
    collab.message_send(invitation=conversation, user=sender, body="SENDER-NOTE-0c3 mine.")
    get_user_model().objects.filter(pk=sender.pk).delete()
    bodies = set(Message.objects.values_list("body", flat=True))
    assert bodies == {REPLY}

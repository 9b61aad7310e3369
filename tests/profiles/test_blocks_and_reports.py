"""Blocks and reports: what they stop, who may report, and how staff decide."""

import pytest
from django.urls import reverse

from catalogue.models import AuditEvent, Authorship, LinkConstraint
from profiles.collaboration import services as collab
from profiles.collaboration.services import CollaborationError
from profiles.models import Block, Invitation, Report
from profiles.signals import report_upheld
from tests.factories import AuthorFactory
from tests.people import signed_in
from tests.profiles.invitations import MESSAGE, TOPIC
from tests.profiles.social_people import work_of

pytestmark = pytest.mark.django_db


# Block and report ------------------------------------------------------------------------------


def test_blocking_stops_invitations_and_messages_both_ways(conversation, recipient, sender):
    signed_in(recipient).post(reverse("profiles:block", args=[conversation.pk]))
    assert Block.objects.filter(blocker=recipient, blocked=sender).exists()
    with pytest.raises(CollaborationError, match="blocked"):
        collab.message_send(invitation=conversation, user=sender, body="Still there?")
    with pytest.raises(CollaborationError, match="cannot send invitations"):
        collab.invitation_create(
            sender=sender, profile=recipient.profile, topic=TOPIC, message=MESSAGE
        )
    page = signed_in(sender).get(recipient.profile.author.get_absolute_url()).content.decode()
    assert "You cannot send invitations to this researcher." in page
    conversation_page = signed_in(sender).get(
        reverse("profiles:conversation", args=[conversation.pk])
    )
    assert "This conversation is closed" in conversation_page.content.decode()


def test_blocking_declines_the_blocked_persons_pending_invitation(invitation, recipient, sender):
    collab.block_create(blocker=recipient, blocked=sender)
    invitation.refresh_from_db()
    assert invitation.status == "declined"


def test_unblocking_from_the_inbox(conversation, recipient, sender):
    block = collab.block_create(blocker=recipient, blocked=sender)
    client = signed_in(recipient)
    assert "People you blocked" in client.get(reverse("profiles:inbox")).content.decode()
    signed_in(sender).post(reverse("profiles:unblock", args=[block.pk]))  # not theirs to remove
    assert Block.objects.exists()
    client.post(reverse("profiles:unblock", args=[block.pk]))
    assert not Block.objects.exists()
    collab.message_send(invitation=conversation, user=sender, body="Back again")


def test_reporting_a_conversation_reaches_staff(conversation, recipient, sender):
    response = signed_in(recipient).post(
        reverse("profiles:report_conversation", args=[conversation.pk]),
        {"reason": "The messages turned into advertising."},
    )
    assert response.status_code == 302
    report = Report.objects.get()
    assert (report.kind, report.reporter, report.reported_user, report.invitation) == (
        "abuse",
        recipient,
        sender,
        conversation,
    )


def test_a_report_and_the_conversation_outlive_the_recipients_withdrawal(
    conversation, recipient, sender
):
    from profiles.claims.services import claim_withdraw
    from profiles.models import Claim

    collab.message_send(invitation=conversation, user=sender, body="Buy our cloud credits now.")
    report = collab.report_abuse(
        reporter=recipient, invitation=conversation, reason="The messages turned into advertising."
    )
    claim = Claim.objects.get(user=recipient, status=Claim.Status.APPROVED)
    claim_withdraw(claim=claim, user=recipient)

    report.refresh_from_db()
    assert Invitation.objects.get(pk=conversation.pk).messages.count() == 2
    assert (report.status, report.reported_user, report.invitation) == (
        "open",
        sender,
        conversation,
    )
    for text in (TOPIC, MESSAGE, "Gladly!", "Buy our cloud credits now."):
        assert text in report.evidence


def test_a_report_needs_a_reason(conversation, recipient):
    response = signed_in(recipient).post(
        reverse("profiles:report_conversation", args=[conversation.pk]), {"reason": "bad"}
    )
    assert response.status_code == 400
    assert "at least 10 characters" in response.content.decode()
    assert not Report.objects.exists()


def test_any_member_reports_a_misattributed_work(author, stranger):
    work = work_of(author, title="A namesake's paper on dunes")
    client = signed_in(stranger)
    url = reverse("profiles:report_work", args=[author.pk])
    page = client.get(url, {"work": work.pk}).content.decode()
    assert "A namesake&#x27;s paper on dunes" in page and "selected" in page
    reason = {"work": work.pk, "reason": "Written by a geographer of the same name."}
    response = client.post(url, reason)
    assert response.status_code == 302 and response["Location"] == author.get_absolute_url()
    client.post(url, reason)  # the same report again is not duplicated
    report = Report.objects.get()
    assert (report.kind, report.author, report.work) == ("misattribution", author, work)


def test_a_misattribution_report_must_name_a_work_of_the_record(author, stranger):
    other = work_of(AuthorFactory(), title="Someone else's work")
    response = signed_in(stranger).post(
        reverse("profiles:report_work", args=[author.pk]),
        {"work": other.pk, "reason": "Not theirs, clearly."},
    )
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Report.objects.exists()


def test_reports_are_rate_limited(author, stranger, monkeypatch):
    monkeypatch.setattr(collab, "REPORT_RATE", "1/d")
    work = work_of(author, title="Dunes")
    client = signed_in(stranger)
    url = reverse("profiles:report_work", args=[author.pk])
    client.post(url, {"work": work.pk, "reason": "Someone else's paper."})
    assert client.post(url, {"work": work.pk, "reason": "Again."}).status_code == 429


# Staff decide reports in the admin -----------------------------------------------------------


def _admin_action(client, action: str, report: Report):
    return client.post(
        reverse("admin:profiles_report_changelist"),
        {"action": action, "_selected_action": [report.pk]},
        follow=True,
    )


def test_staff_uphold_a_misattribution_the_work_leaves_the_record_for_good(
    author, stranger, staff, django_capture_on_commit_callbacks
):
    work = work_of(author, title="A namesake's paper on dunes")
    report, _ = collab.report_misattribution(
        reporter=stranger, author=author, work=work, reason="Written by a geographer."
    )
    heard = []

    def listener(sender, author_id, **kwargs):
        heard.append(author_id)

    report_upheld.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = _admin_action(signed_in(staff), "uphold", report)
    finally:
        report_upheld.disconnect(listener)
    assert "1 report upheld" in response.content.decode()
    report.refresh_from_db()
    assert (report.status, report.handled_by) == ("upheld", staff)
    assert heard == [author.pk]
    assert not Authorship.objects.filter(author=author, work=work).exists()
    rule = LinkConstraint.objects.get(author=author, work=work)
    assert (rule.kind, rule.source) == ("cannot_link", "staff")
    assert AuditEvent.objects.filter(action="report_uphold").exists()


def test_staff_dismiss_a_report_and_nothing_changes(author, stranger, staff):
    work = work_of(author, title="Really theirs")
    report, _ = collab.report_misattribution(
        reporter=stranger, author=author, work=work, reason="I think this is not theirs."
    )
    response = _admin_action(signed_in(staff), "dismiss", report)
    assert "1 report dismissed" in response.content.decode()
    report.refresh_from_db()
    assert report.status == "dismissed"
    assert Authorship.objects.filter(author=author, work=work).exists()
    second = _admin_action(signed_in(staff), "uphold", report)
    assert "already dismissed" in second.content.decode()


def test_reports_list_in_the_admin_for_staff_only(author, stranger, staff, recipient):
    work = work_of(author, title="Dunes")
    collab.report_misattribution(
        reporter=stranger, author=author, work=work, reason="Someone else's paper."
    )
    url = reverse("admin:profiles_report_changelist")
    assert signed_in(staff).get(url).status_code == 200
    for user in (stranger, recipient):
        response = signed_in(user).get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.parametrize("who", ["stranger", "follower", "owner", "staff"])
def test_every_member_may_report_a_misattributed_work(request, author, who):
    work = work_of(author, title="Dunes")
    response = signed_in(request.getfixturevalue(who)).post(
        reverse("profiles:report_work", args=[author.pk]),
        {"work": work.pk, "reason": "A namesake wrote this one."},
    )
    assert response.status_code == 302
    assert Report.objects.get().reporter.username == who


def test_visitors_must_sign_in_to_report(client, author):
    work = work_of(author, title="Dunes")
    response = client.post(
        reverse("profiles:report_work", args=[author.pk]), {"work": work.pk, "reason": "x" * 20}
    )
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Report.objects.exists()

"""Direct collaboration: invitations, conversations, and who may do what."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from profiles.collaboration import selectors as collab_selectors
from profiles.collaboration import services as collab
from profiles.collaboration.services import CollaborationError
from profiles.models import Block, Invitation, Message, Notification, Report
from tests.factories import AuthorFactory
from tests.profiles.invitations import MESSAGE, TOPIC
from tests.profiles.social_people import orcid_for, researcher

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def invite_url(author):
    return reverse("profiles:invite", args=[author.pk])


# Who can invite whom ---------------------------------------------------------------------


def test_a_claimed_researcher_invites_one_who_is_open(sender, recipient, author):
    client = signed_in(sender)
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Send invitation" in html and 'name="topic"' in html
    response = client.post(invite_url(author), {"topic": TOPIC, "message": MESSAGE})
    invitation = Invitation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("profiles:conversation", args=[invitation.pk])
    assert (invitation.sender, invitation.recipient.author, invitation.status) == (
        sender,
        author,
        "pending",
    )
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Your invitation is waiting" in html and 'name="topic"' not in html


def test_htmx_invitation_answers_with_the_updated_panel(sender, recipient, author):
    response = signed_in(sender).post(
        invite_url(author), {"topic": TOPIC, "message": MESSAGE}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.strip().startswith('<section class="panel collaboration-panel"')
    assert "Invitation sent to Grace Hopper" in html
    assert "Your invitation is waiting" in html


def test_an_invitation_with_bad_input_says_what_is_wrong_and_keeps_the_text(
    sender, recipient, author
):
    response = signed_in(sender).post(invite_url(author), {"topic": "", "message": "Hi"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "This field is required" in html
    assert "at least 20 characters" in html
    assert "\nHi</textarea>" in html
    assert not Invitation.objects.exists()


def test_an_unclaimed_record_unlocks_no_invitations(sender):
    author = AuthorFactory(display_name="Unclaimed Person")
    client = signed_in(sender)
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Nobody holds Unclaimed Person's record yet" in html
    response = client.post(invite_url(author), {"topic": TOPIC, "message": MESSAGE})
    assert "Nobody holds Unclaimed Person's record yet" in response.content.decode()
    assert not Invitation.objects.exists()


@pytest.mark.parametrize("target", ["unclaimed", "claimed"])
def test_a_visitor_without_a_record_learns_to_claim_their_own_first(
    stranger, recipient, author, target
):
    if target == "unclaimed":
        author = AuthorFactory(display_name="Unclaimed Person")
    html = signed_in(stranger).get(invite_url(author)).content.decode()
    assert "Claim this author entity" not in html
    assert "hold your own researcher record" in html
    assert f'href="{reverse("publications:search")}">search for yourself</a>' in html


def test_visitors_are_asked_to_sign_in_to_invite(client, recipient, author):
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Sign in to invite" in html
    assert 'name="topic"' not in html
    response = client.post(invite_url(author), {"topic": TOPIC, "message": MESSAGE})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(
    ("who", "reason"),
    [
        ("stranger", "Claim your own author record first"),
        ("follower", "Claim your own author record first"),
        ("staff", "Claim your own author record first"),
        ("recipient", "This is your own record"),
    ],
)
def test_who_may_not_invite(request, recipient, author, who, reason):
    user = request.getfixturevalue(who)
    assert reason in collab.invite_refusal(sender=user, profile=recipient.profile)
    with pytest.raises(CollaborationError, match=reason):
        collab.invitation_create(
            sender=user, profile=recipient.profile, topic=TOPIC, message=MESSAGE
        )
    response = signed_in(user).post(invite_url(author), {"topic": TOPIC, "message": MESSAGE})
    assert response.status_code in (200, 400)
    assert not Invitation.objects.exists()


def test_a_researcher_who_is_not_open_cannot_be_invited(sender, owner, author):
    html = signed_in(sender).get(author.get_absolute_url()).content.decode()
    assert "not taking invitations" in html
    with pytest.raises(CollaborationError, match="not taking invitations"):
        collab.invitation_create(sender=sender, profile=owner.profile, topic=TOPIC, message=MESSAGE)


def test_one_pending_invitation_per_pair(invitation, sender, recipient):
    with pytest.raises(CollaborationError, match="still waiting"):
        collab.invitation_create(
            sender=sender, profile=recipient.profile, topic="Another topic", message=MESSAGE
        )


def test_after_a_decline_the_sender_waits_before_asking_again(invitation, sender, recipient):
    collab.invitation_decline(invitation=invitation, user=recipient)
    with pytest.raises(CollaborationError, match="declined your last invitation"):
        collab.invitation_create(
            sender=sender, profile=recipient.profile, topic=TOPIC, message=MESSAGE
        )
    Invitation.objects.update(responded_at=timezone.now() - timedelta(days=31))
    assert (
        collab.invitation_create(
            sender=sender, profile=recipient.profile, topic=TOPIC, message=MESSAGE
        ).status
        == "pending"
    )


def test_invitations_are_rate_limited_with_a_429_page(sender, author, recipient, monkeypatch):
    monkeypatch.setattr(collab, "INVITE_RATE", "2/d")
    client = signed_in(sender)
    for _ in range(2):
        client.post(invite_url(author), {"topic": "", "message": ""})
    response = client.post(invite_url(author), {"topic": TOPIC, "message": MESSAGE})
    assert response.status_code == 429
    assert "Too many requests" in response.content.decode()
    assert not Invitation.objects.exists()
    assert client.get(invite_url(author)).status_code == 200  # reading is not limited


# Answering and the conversation -------------------------------------------------------------


def test_the_recipient_accepts_and_the_invitation_becomes_a_conversation(
    invitation, recipient, sender
):
    client = signed_in(recipient)
    inbox = client.get(reverse("profiles:inbox")).content.decode()
    assert "Waiting for your answer" in inbox and TOPIC in inbox and "Ada Lovelace" in inbox
    url = reverse("profiles:invitation_accept", args=[invitation.pk])
    response = client.post(url, {"reply": "Yes, let us talk next week."})
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == "accepted" and invitation.responded_at is not None
    assert Message.objects.get().body == "Yes, let us talk next week."
    note = Notification.objects.get(user=sender)
    assert note.kind == "invitation" and "Grace Hopper accepted" in note.text
    page = client.get(reverse("profiles:conversation", args=[invitation.pk])).content.decode()
    assert MESSAGE in page and "Yes, let us talk next week." in page
    assert "Write to Ada Lovelace" in page


def test_both_people_write_in_the_conversation_and_unread_messages_are_counted(
    conversation, recipient, sender
):
    url = reverse("profiles:conversation", args=[conversation.pk])
    sender_client, recipient_client = signed_in(sender), signed_in(recipient)
    response = sender_client.post(url, {"body": "Great: Tuesday at ten?"})
    assert response.status_code == 302 and response["Location"].endswith("#latest")
    assert collab_selectors.unread_counts(recipient)["messages"] == 1
    home = recipient_client.get(reverse("publications:home")).content.decode()
    assert 'class="nav-count">1<' in home
    recipient_client.get(url)  # reading marks the message read
    assert collab_selectors.unread_counts(recipient)["messages"] == 0
    recipient_client.post(url, {"body": "Tuesday works."})
    assert list(Message.objects.values_list("body", flat=True)) == [
        "Gladly!",
        "Great: Tuesday at ten?",
        "Tuesday works.",
    ]


def test_messages_are_rate_limited_with_a_429_page(conversation, sender, monkeypatch):
    monkeypatch.setattr(collab, "MESSAGE_RATE", "2/h")
    client = signed_in(sender)
    url = reverse("profiles:conversation", args=[conversation.pk])
    for n in range(2):
        assert client.post(url, {"body": f"Note {n}"}).status_code == 302
    response = client.post(url, {"body": "One too many"})
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 3600  # what is left of the limit's hour
    assert not Message.objects.filter(body="One too many").exists()
    assert client.get(url).status_code == 200  # reading is not limited


def test_an_empty_message_is_refused_with_the_reason(conversation, sender):
    url = reverse("profiles:conversation", args=[conversation.pk])
    response = signed_in(sender).post(url, {"body": "   "})
    assert response.status_code == 400
    assert "This field is required" in response.content.decode()
    assert Message.objects.count() == 1


def test_no_messages_before_the_invitation_is_accepted(invitation, sender):
    with pytest.raises(CollaborationError, match="once the invitation is accepted"):
        collab.message_send(invitation=invitation, user=sender, body="Hello?")
    response = signed_in(sender).post(
        reverse("profiles:conversation", args=[invitation.pk]), {"body": "Hello?"}
    )
    assert response.status_code == 400
    assert not Message.objects.exists()


def test_declining_tells_the_sender(invitation, recipient, sender):
    response = signed_in(recipient).post(
        reverse("profiles:invitation_decline", args=[invitation.pk])
    )
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == "declined"
    assert "declined your invitation" in Notification.objects.get(user=sender).text
    assert collab_selectors.unread_counts(recipient)["invites"] == 0


# Permissions: stranger, follower, owner, staff -------------------------------------------------


@pytest.mark.parametrize(
    ("who", "view", "accept", "decline", "block", "report"),
    [
        ("stranger", 404, 404, 404, 404, 404),
        ("follower", 404, 404, 404, 404, 404),
        ("staff", 404, 404, 404, 404, 404),
        ("sender", 200, 400, 400, 302, 302),
        ("recipient", 200, 302, 400, 302, 302),
    ],
)
def test_who_may_see_and_act_on_an_invitation(
    request, invitation, stranger, follower, staff, who, view, accept, decline, block, report
):
    client = signed_in(request.getfixturevalue(who))
    args = [invitation.pk]
    assert client.get(reverse("profiles:conversation", args=args)).status_code == view
    assert client.post(reverse("profiles:invitation_accept", args=args)).status_code == accept
    # After an accept by the recipient, declining is no longer possible for anyone.
    assert client.post(reverse("profiles:invitation_decline", args=args)).status_code == decline
    reason = {"reason": "Unwanted sales pitch, not research."}
    assert client.post(reverse("profiles:report_conversation", args=args), reason).status_code == (
        report
    )
    assert client.post(reverse("profiles:block", args=args)).status_code == block
    invitation.refresh_from_db()
    assert invitation.status == ("accepted" if who == "recipient" else "pending")


@pytest.mark.parametrize("who", ["stranger", "follower", "staff"])
def test_outsiders_cannot_write_in_a_conversation(request, conversation, who):
    client = signed_in(request.getfixturevalue(who))
    url = reverse("profiles:conversation", args=[conversation.pk])
    assert client.post(url, {"body": "Let me in"}).status_code == 404
    with pytest.raises(CollaborationError):
        collab.message_send(invitation=conversation, user=request.getfixturevalue(who), body="x")
    assert Message.objects.count() == 1


def test_the_inbox_needs_sign_in(client):
    for name in ("profiles:inbox", "profiles:notifications"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_collaboration_forms_need_the_csrf_token(invitation, recipient, author):
    client = Client(enforce_csrf_checks=True)
    client.force_login(recipient)
    args = [invitation.pk]
    for url in (
        reverse("profiles:invitation_accept", args=args),
        reverse("profiles:invitation_decline", args=args),
        reverse("profiles:conversation", args=args),
        reverse("profiles:block", args=args),
        reverse("profiles:report_conversation", args=args),
        reverse("profiles:report_work", args=[author.pk]),
        invite_url(author),
    ):
        assert client.post(url, {"body": "x", "reason": "y" * 20}).status_code == 403, url
    invitation.refresh_from_db()
    assert invitation.status == "pending"
    assert not Block.objects.exists() and not Report.objects.exists()


# Privacy -------------------------------------------------------------------------------------


def test_no_collaboration_page_shows_a_private_email(conversation, recipient, sender, author):
    for user in (recipient, sender):
        client = signed_in(user)
        for url in (
            reverse("profiles:inbox"),
            reverse("profiles:conversation", args=[conversation.pk]),
            reverse("profiles:notifications"),
            author.get_absolute_url(),
            sender.profile.author.get_absolute_url(),
        ):
            html = client.get(url).content.decode()
            assert "private@example.net" not in html, url
            assert "@example.org" not in html, url


# Queries on listing pages --------------------------------------------------------------------


@pytest.mark.parametrize("senders", [1, 8])
def test_the_inbox_takes_a_fixed_number_of_queries(
    recipient, senders, django_assert_max_num_queries
):
    for n in range(senders):
        user = researcher(f"sender{n}", f"Sender Number{n}", orcid=orcid_for(n))
        invitation = collab.invitation_create(
            sender=user, profile=recipient.profile, topic=f"Topic {n}", message=MESSAGE
        )
        if n % 2:
            accepted = collab.invitation_accept(
                invitation=invitation, user=recipient, reply="Sure."
            )
            collab.message_send(invitation=accepted, user=user, body="Thanks!")
        if n == 0:
            collab.block_create(blocker=recipient, blocked=user)
    client = signed_in(recipient)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("profiles:inbox"))
    assert "Sender Number" in response.content.decode()


@pytest.mark.parametrize("messages", [1, 30])
def test_a_conversation_takes_a_fixed_number_of_queries(
    conversation, sender, recipient, messages, django_assert_max_num_queries
):
    for n in range(messages):
        author = (sender, recipient)[n % 2]
        collab.message_send(invitation=conversation, user=author, body=f"Message {n}")
    client = signed_in(recipient)
    with django_assert_max_num_queries(10):
        response = client.get(reverse("profiles:conversation", args=[conversation.pk]))
    assert f"Message {messages - 1}" in response.content.decode()

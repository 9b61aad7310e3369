"""The world the permission table acts on: a record, the people around it, their traces."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rest_framework.authtoken.models import Token

from catalogue.models import ImportRun, MergeCandidate
from profiles.claims import ownership
from profiles.models import Block, Claim, Invitation, Message, Notification, Profile, Report
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory, grant
from tests.people import person
from tests.permissions.table import (
    CLAIM_EMAIL,
    EVIDENCE,
    FOLLOWER,
    GRANTED,
    INVITE_TEXT,
    MEMBER,
    MESSAGE,
    NOTE,
    OTHER,
    OWNER,
    STAFF,
    STAFF_PERMS,
    STRANGER,
    SUPER,
    TOPIC,
    VIEW_PERMS,
    VIEWER,
)


@pytest.fixture
def world(settings, tmp_path, author, owner, follower, other_owner, stranger, staff):
    """The record (the shared ``author``) and the table's nine people, with their traces.

    Five are the suite's personas (tests/people.py); the three kinds of staff with
    fewer rights than ``staff`` are the table's own.
    """
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"  # where an accepted upload is kept
    w = SimpleNamespace()
    w.record = author
    w.other_record = Profile.objects.get(user=other_owner).author
    w.unclaimed = AuthorFactory(display_name="Nobody Yet")
    w.pending_record = AuthorFactory(display_name="Pending Record")
    w.people = {
        STRANGER: None,  # not signed in
        MEMBER: stranger,  # an account with no tie to the record
        FOLLOWER: follower,
        OWNER: owner,
        OTHER: other_owner,
        STAFF: person("staff_plain", is_staff=True),
        VIEWER: grant(person(VIEWER, is_staff=True), *VIEW_PERMS),
        GRANTED: grant(person(GRANTED, is_staff=True), *STAFF_PERMS),
        SUPER: staff,
    }
    Profile.objects.update(open_to_collaborate=True)
    w.profile = Profile.objects.get(user=owner)
    w.other_profile = Profile.objects.get(user=other_owner)
    _works(w)
    _claim(w)
    _conversations(w)
    _staff_work(w)
    return w


def _works(w) -> None:
    owner = w.people[OWNER]
    w.mine = AuthorshipFactory(author=w.record).work
    w.namesake = AuthorshipFactory(author=w.record).work
    w.known = WorkFactory(doi="10.5555/known")
    w.pinned = AuthorshipFactory(author=w.record).work
    ownership.work_pin(profile=w.profile, work=w.pinned, actor=owner)
    w.removed = AuthorshipFactory(author=w.record).work
    ownership.work_disown(profile=w.profile, work=w.removed, actor=owner)


def _claim(w) -> None:
    w.claim = Claim.objects.create(
        user=w.people[MEMBER],
        author=w.pending_record,
        method=Claim.Method.EMAIL,
        verified_email=CLAIM_EMAIL,
        evidence=EVIDENCE,
    )


def _conversations(w) -> None:
    owner, other = w.people[OWNER], w.people[OTHER]

    def invitation(sender, profile, **extra):
        return Invitation.objects.create(
            sender=sender,
            sender_author=Profile.objects.get(user=sender).author,
            recipient=profile,
            recipient_user=profile.user,
            recipient_author=profile.author,
            **extra,
        )

    w.conversation = invitation(
        other, w.profile, topic=TOPIC, message=INVITE_TEXT, status=Invitation.Status.ACCEPTED
    )
    Message.objects.create(invitation=w.conversation, sender=other, body=MESSAGE)
    w.pending = invitation(owner, w.other_profile, topic="A second topic", message=INVITE_TEXT)
    w.block = Block.objects.create(blocker=owner, blocked=w.people[MEMBER])
    w.report = Report.objects.create(
        reporter=owner,
        kind=Report.Kind.ABUSE,
        reported_user=other,
        invitation=w.conversation,
        reason="Unwanted personal questions.",
        evidence=f"{TOPIC}\n{INVITE_TEXT}\n{MESSAGE}",
    )
    Notification.objects.create(user=owner, kind=Notification.Kind.NEW_WORK, text=NOTE)
    # What the site tells a sender when an invitation is answered, and of a new message.
    w.conversation_notes = [
        Notification.objects.create(
            user=other,
            kind=Notification.Kind.INVITATION,
            author=w.profile.author,
            text=f"{w.profile.author.display_name} accepted your invitation about “{TOPIC}”.",
        ),
        Notification.objects.create(
            user=owner, kind=Notification.Kind.MESSAGE, text=f"New message about “{TOPIC}”."
        ),
    ]
    w.token = Token.objects.create(user=owner)


def _staff_work(w) -> None:
    w.queued_run = ImportRun.objects.create(
        source="openalex", kind="author", parameters={"id": "A1"}, status=ImportRun.Status.QUEUED
    )
    w.failed_run = ImportRun.objects.create(
        source="openalex",
        kind="author",
        parameters={"id": "A2"},
        status=ImportRun.Status.FAILED,
        error="boom",
    )
    w.namesakes = AuthorFactory(display_name="Same Name"), AuthorFactory(display_name="Same Name")
    w.candidate = MergeCandidate.objects.create(
        kind="author",
        author_a=w.namesakes[0],
        author_b=w.namesakes[1],
        reason="Same name, same institution.",
    )

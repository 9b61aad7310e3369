"""Who may do what: every action and private page, on the site, the API and the admin.

One table. Each row is one action; each person below tries it on the same world,
which is rolled back after each try. A row says the answer each person gets,
who sees the private text the answer may carry (evidence, e-mail addresses,
message text, notification and token text; absent for everyone else), and,
for writes, whose try changed something.

The people: a stranger (not signed in); a member without a record; a follower
of the record; the owner, who holds it (approved claim); another owner, who
holds another record; staff without permissions; staff with only the view
permissions; staff with the permissions each staff step needs; a superuser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from rest_framework.authtoken.models import Token

from profiles.claims import ownership
from profiles.models import (
    Block,
    Claim,
    Follow,
    Invitation,
    Message,
    Notification,
    Preferences,
    Profile,
    Report,
)
from publications.models import AuditEvent, ImportRun, MergeCandidate
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory, grant
from tests.profiles.claim_people import holds, person
from tests.profiles.social_people import orcid_for

pytestmark = pytest.mark.django_db

STRANGER, MEMBER, FOLLOWER, OWNER, OTHER = "stranger", "member", "follower", "owner", "other"
STAFF, VIEWER, GRANTED, SUPER = "staff", "staff_viewer", "staff_granted", "superuser"
PEOPLE = [STRANGER, MEMBER, FOLLOWER, OWNER, OTHER, STAFF, VIEWER, GRANTED, SUPER]
SIGNED_IN = set(PEOPLE) - {STRANGER}
MEMBERS = {MEMBER, FOLLOWER, OWNER, OTHER}
STAFF_SIDE = {STAFF, VIEWER, GRANTED, SUPER}
READERS = {VIEWER, GRANTED, SUPER}  # the admin lets them view
DECIDERS = {GRANTED, SUPER}  # the admin lets them change

VIEW_PERMS = [
    "publications.view_importrun",
    "publications.view_mergecandidate",
    "publications.view_author",
    "profiles.view_claim",
    "profiles.view_report",
]
STAFF_PERMS = [
    *VIEW_PERMS,
    "publications.add_importrun",
    "publications.change_importrun",
    "publications.change_mergecandidate",
    "publications.change_author",
    "profiles.change_claim",
    "profiles.change_report",
]

# Private text: each must reach only the people a row names.
EVIDENCE = "I was a postdoc in this group; my staff page lists EVIDENCE-7c1."
CLAIM_EMAIL = "member.private@uni.example"
TOPIC = "TOPIC-4e2 data sharing"
MESSAGE = "MESSAGE-TEXT-9d5: here is my private phone number."
INVITE_TEXT = "INVITATION-TEXT-3a8: would you like to work together on this?"
NOTE = "NOTE-TEXT-6b0 a new work"

# An OpenAlex list page as a recorded file, for the admin's upload form.
RECORDED_FILE = (
    b'{"meta": {"count": 1, "per_page": 25}, "results": [{"id": "https://openalex.org/W9",'
    b' "display_name": "A recorded work", "authorships": []}]}'
)

LOGIN = "login"  # a redirect to the site's sign-in page
ADMIN_LOGIN = "admin-login"  # a redirect to the admin's sign-in page


@pytest.fixture
def world(settings, tmp_path):
    # Nine people per row: a fast hasher keeps the table quick (no one signs in by password).
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"  # where an accepted upload is kept
    w = SimpleNamespace()
    w.record = AuthorFactory(display_name="Ada Record", orcid=orcid_for(1))
    w.other_record = AuthorFactory(display_name="Other Record", orcid=orcid_for(2))
    w.unclaimed = AuthorFactory(display_name="Nobody Yet")
    w.pending_record = AuthorFactory(display_name="Pending Record")
    people = {
        STRANGER: None,
        MEMBER: person(MEMBER),
        FOLLOWER: person(FOLLOWER),
        OWNER: person(OWNER, email="owner.private@example.net"),
        OTHER: person(OTHER, email="other.private@example.net"),
        STAFF: person(STAFF, is_staff=True),
        VIEWER: grant(person(VIEWER, is_staff=True), *VIEW_PERMS),
        GRANTED: grant(person(GRANTED, is_staff=True), *STAFF_PERMS),
        SUPER: person(SUPER, is_staff=True, is_superuser=True),
    }
    w.people = people
    Follow.objects.create(user=people[FOLLOWER], author=w.record)
    holds(people[OWNER], w.record)
    holds(people[OTHER], w.other_record)
    Profile.objects.update(open_to_collaborate=True)
    w.profile = Profile.objects.get(user=people[OWNER])
    w.other_profile = Profile.objects.get(user=people[OTHER])
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


@dataclass
class Row:
    """One action: how to ask, the answer each person gets, and what it may show or change."""

    name: str
    method: str
    url: Callable[[SimpleNamespace], str]
    answers: dict[str, int | str]
    data: dict | Callable[[SimpleNamespace], dict] = field(default_factory=dict)
    api: bool = False
    # Private text in the answer: shown to ``sees``, to no one else.
    private: tuple[str, ...] = ()
    sees: frozenset[str] = frozenset()
    # For writes: whether the try changed something, and whose try should.
    changed: Callable[[SimpleNamespace], bool] | None = None
    acts: frozenset[str] = frozenset()


def answers(default, **people) -> dict[str, int | str]:
    """``default`` for everyone, except the people named (by persona)."""
    return {who: people.get(who, default) for who in PEOPLE}


def by(groups: dict) -> dict[str, int | str]:
    """Answers given per group of people: ``{frozenset_or_set: answer}``; all must be covered."""
    table = {}
    for group, answer in groups.items():
        for who in group if isinstance(group, set | frozenset) else [group]:
            table[who] = answer
    assert set(table) == set(PEOPLE), set(PEOPLE) - set(table)
    return table


def page(*, signed_in, stranger=LOGIN):
    return answers(signed_in, stranger=stranger)


def only(allowed: set, ok, *, refused, stranger=LOGIN) -> dict:
    return by({frozenset(allowed): ok, frozenset(SIGNED_IN - allowed): refused, STRANGER: stranger})


def admin_only(allowed: set, ok) -> dict:
    """An admin page: members go to the admin's sign-in; staff without the permission, 403."""
    return by(
        {
            frozenset(allowed): ok,
            frozenset(STAFF_SIDE - allowed): 403,
            frozenset(MEMBERS | {STRANGER}): ADMIN_LOGIN,
        }
    )


def api_only(allowed: set, ok, *, refused=403) -> dict:
    return by({frozenset(allowed): ok, frozenset(SIGNED_IN - allowed): refused, STRANGER: 401})


def _url(name, *args):
    from django.urls import reverse

    return lambda w: reverse(name, args=[a(w) if callable(a) else a for a in args])


def record(w):
    return w.record.pk


def admin_change(app_model: str, obj: Callable):
    return _url(f"admin:{app_model}_change", lambda w: obj(w).pk)


PAIR = frozenset({OWNER, OTHER})  # the two people of the conversation
CLAIM_READERS = frozenset({MEMBER} | READERS)

ROWS = [
    # Claims -------------------------------------------------------------------------------------
    Row(
        "claim: make one (page)",
        "post",
        _url("profiles:claim", lambda w: w.unclaimed.pk),
        # One claim at a time: the owners hold a record, the member waits for a decision.
        by({frozenset({FOLLOWER} | STAFF_SIDE): 302, PAIR | {MEMBER}: 400, STRANGER: LOGIN}),
        data={"method": "evidence", "evidence": EVIDENCE},
        changed=lambda w: Claim.objects.filter(author=w.unclaimed).exists(),
        acts=frozenset({FOLLOWER} | STAFF_SIDE),
    ),
    Row(
        "claim: read its evidence (page)",
        "get",
        _url("profiles:claim_detail", lambda w: w.claim.pk),
        only(CLAIM_READERS, 200, refused=404),
        private=(EVIDENCE,),
        sees=CLAIM_READERS,
    ),
    Row(
        "claim: the claimant's e-mail address (page)",
        "get",
        _url("profiles:claim_detail", lambda w: w.claim.pk),
        only(CLAIM_READERS, 200, refused=404),
        private=(CLAIM_EMAIL,),
        sees=frozenset({MEMBER}),
    ),
    Row(
        "claim: list (page)",
        "get",
        _url("profiles:claim_list"),
        page(signed_in=200),
        private=("Pending Record",),
        sees=frozenset({MEMBER}),
    ),
    Row(
        "claim: withdraw (page)",
        "post",
        _url("profiles:claim_withdraw", lambda w: w.claim.pk),
        only({MEMBER}, 302, refused=404),
        changed=lambda w: Claim.objects.get(pk=w.claim.pk).status == Claim.Status.WITHDRAWN,
        acts=frozenset({MEMBER}),
    ),
    Row(
        "claim: list (API)",
        "get",
        lambda w: "/api/v1/claims/",
        api_only(SIGNED_IN, 200),
        api=True,
        private=(EVIDENCE,),
        sees=CLAIM_READERS,
    ),
    Row(
        "claim: read (API)",
        "get",
        lambda w: f"/api/v1/claims/{w.claim.pk}/",
        api_only(CLAIM_READERS, 200, refused=404),
        api=True,
        private=(EVIDENCE,),
        sees=CLAIM_READERS,
    ),
    Row(
        "claim: make one (API)",
        "post",
        lambda w: "/api/v1/claims/",
        by({frozenset({FOLLOWER} | STAFF_SIDE): 201, PAIR | {MEMBER}: 400, STRANGER: 401}),
        data=lambda w: {"author": w.unclaimed.pk, "method": "evidence", "evidence": EVIDENCE},
        api=True,
        changed=lambda w: Claim.objects.filter(author=w.unclaimed).exists(),
        acts=frozenset({FOLLOWER} | STAFF_SIDE),
    ),
    Row(
        "claim: withdraw (API)",
        "post",
        lambda w: f"/api/v1/claims/{w.claim.pk}/withdraw/",
        api_only({MEMBER}, 200, refused=404),
        api=True,
        changed=lambda w: Claim.objects.get(pk=w.claim.pk).status == Claim.Status.WITHDRAWN,
        acts=frozenset({MEMBER}),
    ),
    Row(
        "claim: evidence and e-mail (admin)",
        "get",
        admin_change("profiles_claim", lambda w: w.claim),
        admin_only(READERS, 200),
        private=(EVIDENCE, CLAIM_EMAIL),
        sees=READERS,
    ),
    Row(
        "claim: decide (admin)",
        "post",
        _url("admin:profiles_claim_reject", lambda w: w.claim.pk),
        admin_only(DECIDERS, 302) | {VIEWER: 403},
        data={"reason": "The evidence does not show who you are."},
        changed=lambda w: Claim.objects.get(pk=w.claim.pk).status == Claim.Status.REJECTED,
        acts=DECIDERS,
    ),
    # Following ----------------------------------------------------------------------------------
    Row(
        "follow (page)",
        "post",
        _url("profiles:follow", record),
        page(signed_in=302),  # the owner is told one does not follow one's own record
        changed=lambda w: Follow.objects.filter(author=w.record).count() > 1,
        acts=frozenset(SIGNED_IN - {FOLLOWER, OWNER}),
    ),
    Row(
        "unfollow (page)",
        "post",
        _url("profiles:unfollow", record),
        page(signed_in=302),
        changed=lambda w: not Follow.objects.filter(author=w.record).exists(),
        acts=frozenset({FOLLOWER}),
    ),
    Row(
        "follows: list (API)",
        "get",
        lambda w: "/api/v1/follows/",
        api_only(SIGNED_IN, 200),
        api=True,
    ),
    Row(
        "follow (API)",
        "post",
        lambda w: "/api/v1/follows/",
        api_only(SIGNED_IN, 201) | {FOLLOWER: 200, OWNER: 400},
        data=lambda w: {"author": w.record.pk},
        api=True,
        changed=lambda w: Follow.objects.filter(author=w.record).count() > 1,
        acts=frozenset(SIGNED_IN - {FOLLOWER, OWNER}),
    ),
    Row(
        "unfollow (API)",
        "delete",
        lambda w: f"/api/v1/follows/{w.record.pk}/",
        api_only(SIGNED_IN, 204),
        api=True,
        changed=lambda w: not Follow.objects.filter(author=w.record).exists(),
        acts=frozenset({FOLLOWER}),
    ),
    Row(
        "citation alerts on (page)",
        "post",
        _url("profiles:citation_alerts", record),
        page(signed_in=302),  # the others are told to follow first
        data={"on": "1"},
        changed=lambda w: Follow.objects.filter(
            author=w.record, citation_alerts_since__isnull=False
        ).exists(),
        acts=frozenset({FOLLOWER}),
    ),
    Row(
        "follows: citation alerts on (API)",
        "patch",
        lambda w: f"/api/v1/follows/{w.record.pk}/",
        api_only({FOLLOWER}, 200, refused=404),
        data={"citation_alerts": True},
        api=True,
        changed=lambda w: Follow.objects.filter(
            author=w.record, citation_alerts_since__isnull=False
        ).exists(),
        acts=frozenset({FOLLOWER}),
    ),
    Row("following page", "get", _url("profiles:following"), page(signed_in=200)),
    Row(
        "daily digest on (page)",
        "post",
        _url("profiles:digest_preferences"),
        page(signed_in=302),  # one's own setting: each signed-in person changes only theirs
        data={"email_digest": "on"},
        changed=lambda w: Preferences.objects.filter(email_digest=True).exists(),
        acts=frozenset(SIGNED_IN),
    ),
    Row(
        "notifications",
        "get",
        _url("profiles:notifications"),
        page(signed_in=200),
        private=(NOTE,),
        sees=frozenset({OWNER}),
    ),
    # The owner's record -------------------------------------------------------------------------
    Row(
        "profile: edit page",
        "get",
        _url("profiles:profile_edit", record),
        only({OWNER}, 200, refused=403),
    ),
    Row(
        "profile: edit",
        "post",
        _url("profiles:profile_edit", record),
        only({OWNER}, 302, refused=403),
        data={"tagline": "Changed"},
        changed=lambda w: Profile.objects.get(pk=w.profile.pk).tagline == "Changed",
        acts=frozenset({OWNER}),
    ),
    Row(
        "pin a work",
        "post",
        _url("profiles:work_pin", record, lambda w: w.mine.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: w.profile.pinned_works.filter(pk=w.mine.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "unpin a work",
        "post",
        _url("profiles:work_unpin", record, lambda w: w.pinned.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: not w.profile.pinned_works.filter(pk=w.pinned.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "not mine: take a work off the record",
        "post",
        _url("profiles:work_disown", record, lambda w: w.namesake.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: not w.record.authorships.filter(work=w.namesake).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "restore a work taken off",
        "post",
        _url("profiles:work_restore", record, lambda w: w.removed.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: w.record.authorships.filter(work=w.removed).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "add a work",
        "post",
        _url("profiles:work_add", record),
        only({OWNER}, 302, refused=403),
        data={"identifier": "10.5555/known"},
        changed=lambda w: w.record.authorships.filter(work=w.known).exists(),
        acts=frozenset({OWNER}),
    ),
    # Collaboration ------------------------------------------------------------------------------
    Row(
        "invite",
        "post",
        _url("profiles:invite", record),
        # Only a holder of another record may invite; the others are told why (400).
        by({frozenset({OTHER}): 302, frozenset(SIGNED_IN - {OTHER}): 400, STRANGER: LOGIN}),
        data={"topic": "Another topic", "message": INVITE_TEXT},
        changed=lambda w: Invitation.objects.count() > 2,
        acts=frozenset({OTHER}),
    ),
    Row(
        "accept an invitation",
        "post",
        _url("profiles:invitation_accept", lambda w: w.pending.pk),
        by(
            {
                frozenset({OTHER}): 302,
                frozenset({OWNER}): 400,
                frozenset(SIGNED_IN - PAIR): 404,
                STRANGER: LOGIN,
            }
        ),  # fmt: skip
        changed=lambda w: Invitation.objects.get(pk=w.pending.pk).status == "accepted",
        acts=frozenset({OTHER}),
    ),
    Row(
        "decline an invitation",
        "post",
        _url("profiles:invitation_decline", lambda w: w.pending.pk),
        by(
            {
                frozenset({OTHER}): 302,
                frozenset({OWNER}): 400,
                frozenset(SIGNED_IN - PAIR): 404,
                STRANGER: LOGIN,
            }
        ),  # fmt: skip
        changed=lambda w: Invitation.objects.get(pk=w.pending.pk).status == "declined",
        acts=frozenset({OTHER}),
    ),
    Row(
        "conversation: read",
        "get",
        _url("profiles:conversation", lambda w: w.conversation.pk),
        only(PAIR, 200, refused=404),
        private=(TOPIC, INVITE_TEXT, MESSAGE),
        sees=PAIR,
    ),
    Row(
        "conversation: write",
        "post",
        _url("profiles:conversation", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        data={"body": "A new message."},
        changed=lambda w: w.conversation.messages.count() > 1,
        acts=PAIR,
    ),
    Row(
        "block",
        "post",
        _url("profiles:block", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        changed=lambda w: Block.objects.count() > 1,
        acts=PAIR,
    ),
    Row(
        "unblock",
        "post",
        _url("profiles:unblock", lambda w: w.block.pk),
        page(signed_in=302),  # someone else's block is left as it is, silently
        changed=lambda w: not Block.objects.filter(pk=w.block.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "report a conversation",
        "post",
        _url("profiles:report_conversation", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        data={"reason": "Unwanted personal questions again."},
        changed=lambda w: Report.objects.count() > 1,
        acts=PAIR,
    ),
    Row(
        "report a misattributed work",
        "post",
        _url("profiles:report_work", record),
        page(signed_in=302),
        data=lambda w: {"work": w.mine.pk, "reason": "This paper is by a namesake."},
        changed=lambda w: Report.objects.filter(kind="misattribution").exists(),
        acts=frozenset(SIGNED_IN),
    ),
    Row(
        "inbox",
        "get",
        _url("profiles:inbox"),
        page(signed_in=200),
        private=(TOPIC,),
        sees=PAIR,
    ),
    # API token ----------------------------------------------------------------------------------
    Row(
        "API token page",
        "get",
        _url("profiles:api_token"),
        page(signed_in=200),
        private=("You have a token",),
        sees=frozenset({OWNER}),
    ),
    Row(
        "API token: make a new one",
        "post",
        _url("profiles:api_token"),
        page(signed_in=200),
        changed=lambda w: not Token.objects.filter(key=w.token.key).exists(),
        acts=frozenset({OWNER}),
    ),
    # Imports ------------------------------------------------------------------------------------
    Row(
        "imports: list (API)",
        "get",
        lambda w: "/api/v1/imports/",
        api_only(READERS, 200),
        api=True,
        private=('"parameters"',),
        sees=READERS,
    ),
    Row(
        "imports: queue (API)",
        "post",
        lambda w: "/api/v1/imports/",
        api_only(DECIDERS, 201),
        data={"source": "openalex", "kind": "author", "parameters": {"id": "A5023888391"}},
        api=True,
        changed=lambda w: ImportRun.objects.count() > 2,
        acts=DECIDERS,
    ),
    Row(
        "imports: cancel (API)",
        "post",
        lambda w: f"/api/v1/imports/{w.queued_run.pk}/cancel/",
        api_only(DECIDERS, 200),
        api=True,
        changed=lambda w: ImportRun.objects.get(pk=w.queued_run.pk).status == "cancelled",
        acts=DECIDERS,
    ),
    Row(
        "imports: retry (API)",
        "post",
        lambda w: f"/api/v1/imports/{w.failed_run.pk}/retry/",
        api_only(DECIDERS, 200),
        api=True,
        changed=lambda w: ImportRun.objects.get(pk=w.failed_run.pk).status == "queued",
        acts=DECIDERS,
    ),
    Row(
        "imports: list (admin)",
        "get",
        _url("admin:publications_importrun_changelist"),
        admin_only(READERS, 200),
    ),
    Row(
        "imports: new import form (admin)",
        "get",
        _url("admin:publications_importrun_new_import"),
        admin_only(DECIDERS, 200),
    ),
    Row(
        "imports: upload a recorded file (admin)",
        "post",
        _url("admin:publications_importrun_new_import"),
        admin_only(DECIDERS, 302),
        data=lambda w: {
            "source": "openalex",
            "kind": "dois",
            "value": "",
            "upload": SimpleUploadedFile("works.json", RECORDED_FILE),
        },
        changed=lambda w: ImportRun.objects.filter(kind=ImportRun.Kind.FILE).exists(),
        acts=DECIDERS,
    ),
    Row(
        "imports: a run's progress (admin)",
        "get",
        _url("admin:publications_importrun_progress", lambda w: w.queued_run.pk),
        admin_only(READERS, 200),
    ),
    Row(
        "imports: cancel (admin)",
        "post",
        _url("admin:publications_importrun_cancel", lambda w: w.queued_run.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: ImportRun.objects.get(pk=w.queued_run.pk).status == "cancelled",
        acts=DECIDERS,
    ),
    Row(
        "imports: retry (admin)",
        "post",
        _url("admin:publications_importrun_retry", lambda w: w.failed_run.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: ImportRun.objects.get(pk=w.failed_run.pk).status == "queued",
        acts=DECIDERS,
    ),
    # Curation -----------------------------------------------------------------------------------
    Row(
        "merge candidates (admin)",
        "get",
        _url("admin:publications_mergecandidate_changelist"),
        admin_only(READERS, 200),
    ),
    Row(
        "merge candidate: keep apart (admin)",
        "post",
        _url("admin:publications_mergecandidate_keep_apart", lambda w: w.candidate.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: MergeCandidate.objects.get(pk=w.candidate.pk).status != "open",
        acts=DECIDERS,
    ),
    Row(
        "author merge page (admin)",
        "get",
        _url("admin:publications_author_merge", lambda w: w.namesakes[0].pk),
        admin_only(DECIDERS, 200),
    ),
    # Reports and private messages in the admin ----------------------------------------------------
    Row(
        "report review: the conversation it keeps (admin), audited",
        "get",
        admin_change("profiles_report", lambda w: w.report),
        admin_only(READERS, 200),
        private=(MESSAGE, INVITE_TEXT),
        sees=READERS,
        changed=lambda w: AuditEvent.objects.filter(action="report_evidence_view").exists(),
        acts=READERS,
    ),
    Row(
        "report review: search does not reach message text (admin)",
        "get",
        lambda w: "/admin/profiles/report/?q=MESSAGE-TEXT-9d5",
        admin_only(READERS, 200),
        private=("Unwanted personal questions.",),
        sees=frozenset(),
    ),
    Row(
        "report review: dismiss (admin)",
        "post",
        _url("admin:profiles_report_changelist"),
        # The viewer's list has no such action: the list comes back, nothing changes.
        admin_only(DECIDERS, 302) | {VIEWER: 200},
        data=lambda w: {"action": "dismiss", "_selected_action": [w.report.pk]},
        changed=lambda w: Report.objects.get(pk=w.report.pk).status == "dismissed",
        acts=DECIDERS,
    ),
    Row(
        "private messages are not in the admin",
        "get",
        lambda w: "/admin/profiles/message/",
        admin_only(set(), 404) | {STAFF: 404, VIEWER: 404, GRANTED: 404, SUPER: 404},
    ),
    Row(
        "invitations are not in the admin",
        "get",
        lambda w: "/admin/profiles/invitation/",
        admin_only(set(), 404) | {STAFF: 404, VIEWER: 404, GRANTED: 404, SUPER: 404},
    ),
]


def _ask(client: Client, row: Row, w) -> object:
    data = row.data(w) if callable(row.data) else row.data
    url = row.url(w)
    if row.api:
        send = getattr(client, row.method)
        return send(url, data, content_type="application/json") if data else send(url)
    return getattr(client, row.method)(url, data) if row.method == "post" else client.get(url)


def _outcome(response) -> int | str:
    location = response.get("Location", "") if response.status_code == 302 else ""
    if location.startswith("/admin/login/"):
        return ADMIN_LOGIN
    if location.startswith("/accounts/login/"):
        return LOGIN
    return response.status_code


def _body(response) -> str:
    content = getattr(response, "content", b"")
    return content.decode(errors="replace") if isinstance(content, bytes) else ""


def _try(row: Row, who: str, w) -> list[str]:
    """What went wrong when ``who`` tries ``row``; the world is left as it was."""
    wrong = []
    cache.clear()  # rate limits count per person; each try starts fresh
    with transaction.atomic():
        client = Client()
        if w.people[who] is not None:
            client.force_login(w.people[who])
        response = _ask(client, row, w)
        got, expected = _outcome(response), row.answers[who]
        if got != expected:
            wrong.append(f"{who}: answered {got}, expected {expected}")
        body = _body(response)
        for text in row.private:
            shown = text in body
            if shown != (who in row.sees):
                wrong.append(f"{who}: {text!r} {'shown' if shown else 'not shown'}")
        if row.changed is not None and row.changed(w) != (who in row.acts):
            wrong.append(f"{who}: {'changed' if who not in row.acts else 'did not change'}")
        transaction.set_rollback(True)
    return wrong


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_who_may_do_what(world, row):
    wrong = [problem for who in PEOPLE for problem in _try(row, who, world)]
    assert not wrong, f"{row.name}:\n" + "\n".join(wrong)

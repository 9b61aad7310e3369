"""Who may do what as a member: claims, following, one's record, collaboration, tokens.

The rows of the permission table for what members do; tests/permissions/table.py
says how a row is read and tried, test_admin.py holds the staff side.
"""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from profiles.models import Block, Claim, Follow, Invitation, Preferences, Profile, Report
from tests.permissions.table import (
    CLAIM_EMAIL,
    CLAIM_READERS,
    DECIDERS,
    EVIDENCE,
    FOLLOWER,
    INVITE_TEXT,
    LOGIN,
    MEMBER,
    MESSAGE,
    NOTE,
    OTHER,
    OWNER,
    PAIR,
    READERS,
    SIGNED_IN,
    STAFF_SIDE,
    STRANGER,
    TOPIC,
    VIEWER,
    Row,
    admin_change,
    admin_only,
    api_only,
    by,
    named_url,
    only,
    page,
    problems,
    record,
)

pytestmark = pytest.mark.django_db

ROWS = [
    # Claims -------------------------------------------------------------------------------------
    Row(
        "claim: make one (page)",
        "post",
        named_url("profiles:claim", lambda w: w.unclaimed.pk),
        # One claim at a time: the owners hold a record, the member waits for a decision.
        by({frozenset({FOLLOWER} | STAFF_SIDE): 302, PAIR | {MEMBER}: 400, STRANGER: LOGIN}),
        data={"method": "evidence", "evidence": EVIDENCE},
        changed=lambda w: Claim.objects.filter(author=w.unclaimed).exists(),
        acts=frozenset({FOLLOWER} | STAFF_SIDE),
    ),
    Row(
        "claim: read its evidence (page)",
        "get",
        named_url("profiles:claim_detail", lambda w: w.claim.pk),
        only(CLAIM_READERS, 200, refused=404),
        private=(EVIDENCE,),
        sees=CLAIM_READERS,
    ),
    Row(
        "claim: the claimant's e-mail address (page)",
        "get",
        named_url("profiles:claim_detail", lambda w: w.claim.pk),
        only(CLAIM_READERS, 200, refused=404),
        private=(CLAIM_EMAIL,),
        sees=frozenset({MEMBER}),
    ),
    Row(
        "claim: list (page)",
        "get",
        named_url("profiles:claim_list"),
        page(signed_in=200),
        private=("Pending Record",),
        sees=frozenset({MEMBER}),
    ),
    Row(
        "claim: withdraw (page)",
        "post",
        named_url("profiles:claim_withdraw", lambda w: w.claim.pk),
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
        named_url("admin:profiles_claim_reject", lambda w: w.claim.pk),
        admin_only(DECIDERS, 302) | {VIEWER: 403},
        data={"reason": "The evidence does not show who you are."},
        changed=lambda w: Claim.objects.get(pk=w.claim.pk).status == Claim.Status.REJECTED,
        acts=DECIDERS,
    ),
    # Following ----------------------------------------------------------------------------------
    Row(
        "follow (page)",
        "post",
        named_url("profiles:follow", record),
        page(signed_in=302),  # the owner is told one does not follow one's own record
        changed=lambda w: Follow.objects.filter(author=w.record).count() > 1,
        acts=frozenset(SIGNED_IN - {FOLLOWER, OWNER}),
    ),
    Row(
        "unfollow (page)",
        "post",
        named_url("profiles:unfollow", record),
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
        named_url("profiles:citation_alerts", record),
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
    Row("following page", "get", named_url("profiles:following"), page(signed_in=200)),
    Row(
        "daily digest on (page)",
        "post",
        named_url("profiles:digest_preferences"),
        page(signed_in=302),  # one's own setting: each signed-in person changes only theirs
        data={"email_digest": "on"},
        changed=lambda w: Preferences.objects.filter(email_digest=True).exists(),
        acts=frozenset(SIGNED_IN),
    ),
    Row(
        "notifications",
        "get",
        named_url("profiles:notifications"),
        page(signed_in=200),
        private=(NOTE,),
        sees=frozenset({OWNER}),
    ),
    # The owner's record -------------------------------------------------------------------------
    Row(
        "profile: edit page",
        "get",
        named_url("profiles:profile_edit", record),
        only({OWNER}, 200, refused=403),
    ),
    Row(
        "profile: edit",
        "post",
        named_url("profiles:profile_edit", record),
        only({OWNER}, 302, refused=403),
        data={"tagline": "Changed"},
        changed=lambda w: Profile.objects.get(pk=w.profile.pk).tagline == "Changed",
        acts=frozenset({OWNER}),
    ),
    Row(
        "pin a work",
        "post",
        named_url("profiles:work_pin", record, lambda w: w.mine.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: w.profile.pinned_works.filter(pk=w.mine.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "unpin a work",
        "post",
        named_url("profiles:work_unpin", record, lambda w: w.pinned.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: not w.profile.pinned_works.filter(pk=w.pinned.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "not mine: take a work off the record",
        "post",
        named_url("profiles:work_disown", record, lambda w: w.namesake.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: not w.record.authorships.filter(work=w.namesake).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "restore a work taken off",
        "post",
        named_url("profiles:work_restore", record, lambda w: w.removed.pk),
        only({OWNER}, 302, refused=403),
        changed=lambda w: w.record.authorships.filter(work=w.removed).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "add a work",
        "post",
        named_url("profiles:work_add", record),
        only({OWNER}, 302, refused=403),
        data={"identifier": "10.5555/known"},
        changed=lambda w: w.record.authorships.filter(work=w.known).exists(),
        acts=frozenset({OWNER}),
    ),
    # Collaboration ------------------------------------------------------------------------------
    Row(
        "invite",
        "post",
        named_url("profiles:invite", record),
        # Only a holder of another record may invite; the others are told why (400).
        by({frozenset({OTHER}): 302, frozenset(SIGNED_IN - {OTHER}): 400, STRANGER: LOGIN}),
        data={"topic": "Another topic", "message": INVITE_TEXT},
        changed=lambda w: Invitation.objects.count() > 2,
        acts=frozenset({OTHER}),
    ),
    Row(
        "accept an invitation",
        "post",
        named_url("profiles:invitation_accept", lambda w: w.pending.pk),
        by(
            {
                frozenset({OTHER}): 302,
                frozenset({OWNER}): 400,
                frozenset(SIGNED_IN - PAIR): 404,
                STRANGER: LOGIN,
            }
        ),
        changed=lambda w: Invitation.objects.get(pk=w.pending.pk).status == "accepted",
        acts=frozenset({OTHER}),
    ),
    Row(
        "decline an invitation",
        "post",
        named_url("profiles:invitation_decline", lambda w: w.pending.pk),
        by(
            {
                frozenset({OTHER}): 302,
                frozenset({OWNER}): 400,
                frozenset(SIGNED_IN - PAIR): 404,
                STRANGER: LOGIN,
            }
        ),
        changed=lambda w: Invitation.objects.get(pk=w.pending.pk).status == "declined",
        acts=frozenset({OTHER}),
    ),
    Row(
        "conversation: read",
        "get",
        named_url("profiles:conversation", lambda w: w.conversation.pk),
        only(PAIR, 200, refused=404),
        private=(TOPIC, INVITE_TEXT, MESSAGE),
        sees=PAIR,
    ),
    Row(
        "conversation: write",
        "post",
        named_url("profiles:conversation", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        data={"body": "A new message."},
        changed=lambda w: w.conversation.messages.count() > 1,
        acts=PAIR,
    ),
    Row(
        "block",
        "post",
        named_url("profiles:block", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        changed=lambda w: Block.objects.count() > 1,
        acts=PAIR,
    ),
    Row(
        "unblock",
        "post",
        named_url("profiles:unblock", lambda w: w.block.pk),
        page(signed_in=302),  # someone else's block is left as it is, silently
        changed=lambda w: not Block.objects.filter(pk=w.block.pk).exists(),
        acts=frozenset({OWNER}),
    ),
    Row(
        "report a conversation",
        "post",
        named_url("profiles:report_conversation", lambda w: w.conversation.pk),
        only(PAIR, 302, refused=404),
        data={"reason": "Unwanted personal questions again."},
        changed=lambda w: Report.objects.count() > 1,
        acts=PAIR,
    ),
    Row(
        "report a misattributed work",
        "post",
        named_url("profiles:report_work", record),
        page(signed_in=302),
        data=lambda w: {"work": w.mine.pk, "reason": "This paper is by a namesake."},
        changed=lambda w: Report.objects.filter(kind="misattribution").exists(),
        acts=frozenset(SIGNED_IN),
    ),
    Row(
        "inbox",
        "get",
        named_url("profiles:inbox"),
        page(signed_in=200),
        private=(TOPIC,),
        sees=PAIR,
    ),
    # API token ----------------------------------------------------------------------------------
    Row(
        "API token page",
        "get",
        named_url("profiles:api_token"),
        page(signed_in=200),
        private=("You have a token",),
        sees=frozenset({OWNER}),
    ),
    Row(
        "API token: make a new one",
        "post",
        named_url("profiles:api_token"),
        page(signed_in=200),
        changed=lambda w: not Token.objects.filter(key=w.token.key).exists(),
        acts=frozenset({OWNER}),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_who_may_do_what_on_the_site(world, row):
    wrong = problems(row, world)
    assert not wrong, wrong

"""What the collaboration pages and panels read: unread counts, the panel, the inbox."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models
from django.db.models import Exists, OuterRef, Q, Subquery

from catalogue.models import Author
from config.compiled import Compiled
from profiles.collaboration.services import (
    DECLINED_RECENTLY,
    blocks_of,
    conversation_closed,
    declined_recently,
    invitations_of,
    is_signed_in,
    other_author,
    other_name,
)
from profiles.models import Block, Invitation, Message, Notification, Profile


class _Count(Subquery):
    """The number of rows of a queryset, as a scalar subquery."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) _rows)"
    output_field = models.IntegerField()


def _unread_parts(user_ref):
    notes = Notification.objects.filter(user=user_ref, read_at__isnull=True)
    invites = Invitation.objects.filter(
        recipient_user=user_ref, recipient__isnull=False, status=Invitation.Status.PENDING
    )
    messages = Message.objects.filter(
        Q(invitation__sender=user_ref) | Q(invitation__recipient_user=user_ref),
        invitation__status=Invitation.Status.ACCEPTED,
        read_at__isnull=True,
    ).exclude(sender=user_ref)
    return {
        "notes": _Count(notes.order_by().values("pk")),
        "invites": _Count(invites.order_by().values("pk")),
        "messages": _Count(messages.order_by().values("pk")),
    }


# Read on every page a member opens (the inbox count in the menu): built once.
_UNREAD = Compiled(
    lambda user: (
        get_user_model()
        .objects.filter(pk=user)
        .annotate(**_unread_parts(OuterRef("pk")))
        .values("notes", "invites", "messages")
    ),
    "user",
)


def unread_counts(user) -> dict[str, int]:
    """Unread notifications, invitations waiting for an answer and unread messages (one query)."""
    if not is_signed_in(user):
        return {"notes": 0, "invites": 0, "messages": 0, "total": 0}
    rows = _UNREAD.rows(user=user.pk)
    row = rows[0] if rows else {"notes": 0, "invites": 0, "messages": 0}
    return {**row, "total": sum(row.values())}


@dataclass
class PanelState:
    """What the direct-collaboration panel of a researcher page shows."""

    state: str  # unclaimed, owner, closed, anonymous, can_invite, refused, pending, conversation
    profile: Profile | None = None
    reason: str = ""
    invitation_id: int | None = None
    pending_count: int = 0
    # The visitor holds no record of their own, so could not send an invitation anyway.
    own_record_missing: bool = False


def collaboration_panel_state(*, author: Author, user) -> PanelState:
    """The panel's state with at most one query (none for visitors)."""
    profile = getattr(author, "profile", None)
    if profile is None:
        return PanelState("unclaimed")
    signed_in = is_signed_in(user)
    if signed_in and profile.user_id == user.pk:
        pending = Invitation.objects.filter(
            recipient=profile, status=Invitation.Status.PENDING
        ).count()
        return PanelState("owner", profile, pending_count=pending)
    if not profile.open_to_collaborate:
        return PanelState("closed", profile)
    if not signed_in:
        return PanelState("anonymous", profile)
    return _viewer_state(profile, user)


def _viewer_state(profile: Profile, user) -> PanelState:
    mine = Invitation.objects.filter(sender=OuterRef("pk"), recipient=profile).order_by(
        "-created_at"
    )
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(
            has_profile=Exists(Profile.objects.filter(user=OuterRef("pk"))),
            blocked=Exists(
                Block.objects.filter(
                    Q(blocker=OuterRef("pk"), blocked_id=profile.user_id)
                    | Q(blocker_id=profile.user_id, blocked=OuterRef("pk"))
                )
            ),
            last_id=Subquery(mine.values("pk")[:1]),
            last_status=Subquery(mine.values("status")[:1]),
            last_answered=Subquery(mine.values("responded_at")[:1]),
        )
        .values("has_profile", "blocked", "last_id", "last_status", "last_answered")
        .get()
    )
    if not row["has_profile"]:
        reason = "Claim your own author record first: invitations come from claimed researchers."
        return PanelState("refused", profile, reason=reason, own_record_missing=True)
    if row["blocked"]:
        return PanelState(
            "refused", profile, reason="You cannot send invitations to this researcher."
        )
    if row["last_status"] == Invitation.Status.PENDING:
        return PanelState("pending", profile, invitation_id=row["last_id"])
    if row["last_status"] == Invitation.Status.ACCEPTED:
        return PanelState("conversation", profile, invitation_id=row["last_id"])
    if declined_recently(row["last_status"], row["last_answered"]):
        return PanelState("refused", profile, reason=DECLINED_RECENTLY)
    return PanelState("can_invite", profile)


@dataclass
class Inbox:
    received: list[Invitation]  # waiting for the user's answer
    conversations: list[Invitation]
    sent: list[Invitation]  # the user's own, pending or declined
    notifications: list[Notification]
    blocks: list[Block]


def inbox_for(*, user: AbstractBaseUser, notifications: int = 10) -> Inbox:
    """The inbox: invitations to answer, conversations (unread first), sent invitations."""
    unread = Message.objects.filter(invitation=OuterRef("pk"), read_at__isnull=True).exclude(
        sender=user
    )
    rows = list(
        invitations_of(user)
        .annotate(
            unread=_Count(unread.order_by().values("pk")),
            last_at=Subquery(
                Message.objects.filter(invitation=OuterRef("pk"))
                .order_by("-created_at")
                .values("created_at")[:1]
            ),
        )
        .order_by("-created_at")
    )
    for row in rows:
        row.other_author = other_author(row, user)
        row.other_name = other_name(row, user)
        row.closed = conversation_closed(row)
    received = [
        i
        for i in rows
        if i.status == Invitation.Status.PENDING
        and i.recipient_user_id == user.pk
        and i.recipient_id is not None
    ]
    conversations = sorted(
        (i for i in rows if i.status == Invitation.Status.ACCEPTED),
        key=lambda i: (i.unread == 0, -(i.last_at or i.responded_at or i.created_at).timestamp()),
    )
    sent = [i for i in rows if i.status != Invitation.Status.ACCEPTED and i.sender_id == user.pk]
    latest = list(
        Notification.objects.filter(user=user).select_related("author", "work")[:notifications]
    )
    return Inbox(received, conversations, sent, latest, blocks_of(user))

"""Direct collaboration: invitations between claimed researchers, conversations, block and report.

Only a signed-in user who holds a claimed record can invite, and only a claimed
researcher who is open to collaborate can be invited. The recipient accepts or
declines; an accepted invitation is a conversation between the two. A block
stops the blocked person from inviting or writing to the one who blocked them
(and the other way round: neither can reach the other). Reports go to staff,
who uphold or dismiss them in the admin; an upheld misattribution takes the
work off the record for good (a staff link constraint later imports obey).

People are shown by the name of the record they hold, never by e-mail address.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from catalogue.audit import audit_record
from catalogue.models import Author, Authorship, LinkConstraint, Source, Work
from catalogue.signals import authors_changed
from profiles.models import Block, Invitation, Message, Notification, Profile, Report
from profiles.signals import report_upheld

# Per signed-in user; pages and API alike.
INVITE_RATE = "10/d"
MESSAGE_RATE = "60/h"
REPORT_RATE = "20/d"
BLOCK_RATE = "30/h"

TOPIC_MIN, TOPIC_MAX = 3, 200
MESSAGE_MIN, MESSAGE_MAX = 20, 2000
BODY_MAX = 5000
REASON_MIN, REASON_MAX = 10, 2000
# A declined invitation cannot be repeated to the same person before this.
REINVITE_AFTER = timedelta(days=30)


class CollaborationError(ValueError):
    """A step that cannot be taken; the message says why, for the person asking."""


def is_signed_in(user) -> bool:
    return user is not None and user.is_authenticated


def person_name(user) -> str:
    """How a member is shown to other members: the name of the record they hold."""
    profile = getattr(user, "profile", None) if user is not None else None
    return profile.author.display_name if profile is not None else "A member without a record"


def _clean(text: str, *, label: str, low: int, high: int) -> str:
    text = (text or "").strip()
    if len(text) < low:
        raise CollaborationError(f"The {label} needs at least {low} characters.")
    if len(text) > high:
        raise CollaborationError(f"Keep the {label} under {high} characters.")
    return text


def blocked_between(a_id: int, b_id: int) -> bool:
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


# Invitations ----------------------------------------------------------------------------


def invite_refusal(*, sender, profile: Profile) -> str:
    """Why ``sender`` cannot invite the holder of ``profile``; empty when they can."""
    if not is_signed_in(sender):
        return "Sign in to send an invitation."
    if profile.user_id == sender.pk:
        return "This is your own record."
    if not profile.open_to_collaborate:
        return "This researcher is not taking invitations at the moment."
    if not Profile.objects.filter(user=sender).exists():
        return "Claim your own author record first: invitations come from claimed researchers."
    if blocked_between(sender.pk, profile.user_id):
        return "You cannot send invitations to this researcher."
    last = Invitation.objects.filter(sender=sender, recipient=profile).first()
    if last is not None and last.status == Invitation.Status.PENDING:
        return "Your earlier invitation is still waiting for an answer."
    if last is not None and declined_recently(last.status, last.responded_at):
        return DECLINED_RECENTLY
    return ""


DECLINED_RECENTLY = "This researcher declined your last invitation; try again in a few weeks."


def declined_recently(status: str, answered_at) -> bool:
    recent = answered_at is not None and timezone.now() - answered_at < REINVITE_AFTER
    return status == Invitation.Status.DECLINED and recent


def invitation_create(*, sender: AbstractBaseUser, profile: Profile, topic: str, message: str):
    """Invite the holder of ``profile`` to collaborate on ``topic``."""
    topic = _clean(topic, label="topic", low=TOPIC_MIN, high=TOPIC_MAX)
    message = _clean(message, label="message", low=MESSAGE_MIN, high=MESSAGE_MAX)
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(pk=profile.pk)
        refusal = invite_refusal(sender=sender, profile=profile)
        if refusal:
            raise CollaborationError(refusal)
        try:
            with transaction.atomic():
                invitation = Invitation.objects.create(
                    sender=sender,
                    sender_author=_held_record(sender),
                    recipient=profile,
                    recipient_user_id=profile.user_id,
                    recipient_author_id=profile.author_id,
                    topic=topic,
                    message=message,
                )
        except IntegrityError:
            raise CollaborationError(
                "Your earlier invitation is still waiting for an answer."
            ) from None
    return invitation


def _held_record(user) -> Author | None:
    profile = Profile.objects.filter(user=user).only("author_id").first()
    return profile.author if profile is not None else None


def _pending_for_recipient(invitation: Invitation, user) -> Invitation:
    invitation = (
        Invitation.objects.select_for_update(of=("self",))
        .select_related("recipient_author", "sender")
        .get(pk=invitation.pk)
    )
    if invitation.recipient_user_id != user.pk:
        raise CollaborationError("Only the researcher who was invited can answer.")
    if invitation.recipient_id is None:
        raise CollaborationError("You no longer hold the record this invitation was sent to.")
    if invitation.status != Invitation.Status.PENDING:
        raise CollaborationError(f"This invitation was already {invitation.status}.")
    return invitation


def _tell_sender(invitation: Invitation, verb: str) -> None:
    if invitation.sender_id is None:
        return
    name = invitation.recipient_author.display_name
    Notification.objects.create(
        user_id=invitation.sender_id,
        kind=Notification.Kind.INVITATION,
        author_id=invitation.recipient_author_id,
        text=f"{name} {verb} your invitation about “{invitation.topic}”."[:300],
    )


def invitation_accept(*, invitation: Invitation, user: AbstractBaseUser, reply: str = ""):
    """The recipient accepts: the invitation becomes a conversation, opened by ``reply``."""
    reply = (reply or "").strip()
    if len(reply) > BODY_MAX:
        raise CollaborationError(f"Keep the reply under {BODY_MAX} characters.")
    with transaction.atomic():
        invitation = _pending_for_recipient(invitation, user)
        invitation.status = Invitation.Status.ACCEPTED
        invitation.responded_at = timezone.now()
        invitation.save(update_fields=["status", "responded_at"])
        if reply:
            Message.objects.create(invitation=invitation, sender=user, body=reply)
        _tell_sender(invitation, "accepted")
    return invitation


def invitation_decline(*, invitation: Invitation, user: AbstractBaseUser) -> Invitation:
    """The recipient declines; the sender is told, and cannot ask again for a while."""
    with transaction.atomic():
        invitation = _pending_for_recipient(invitation, user)
        invitation.status = Invitation.Status.DECLINED
        invitation.responded_at = timezone.now()
        invitation.save(update_fields=["status", "responded_at"])
        _tell_sender(invitation, "declined")
    return invitation


def invitations_of(user) -> QuerySet[Invitation]:
    """Invitations the user sent or received: the only ones they may see."""
    return Invitation.objects.filter(Q(sender=user) | Q(recipient_user=user)).select_related(
        "sender__profile", "sender_author", "recipient", "recipient_author", "recipient_user"
    )


def other_party(invitation: Invitation, user):
    """The other person of an invitation; None when their account is gone."""
    if invitation.sender_id == user.pk:
        return invitation.recipient_user
    return invitation.sender


def other_author(invitation: Invitation, user) -> Author | None:
    """The record the other person held when the invitation was sent."""
    if invitation.sender_id == user.pk:
        return invitation.recipient_author
    return invitation.sender_author


def other_is_former_holder(invitation: Invitation, user) -> bool:
    """Whether the other person no longer holds the record they wrote as."""
    if invitation.sender_id == user.pk:
        return invitation.recipient_id is None
    profile = getattr(invitation.sender, "profile", None) if invitation.sender_id else None
    return profile is None or profile.author_id != invitation.sender_author_id


def other_name(invitation: Invitation, user) -> str:
    """How the other person is shown: the record they hold, or held when they wrote."""
    author = other_author(invitation, user)
    if author is None:
        return person_name(None)
    if other_is_former_holder(invitation, user):
        return f"former holder of {author.display_name}"
    return author.display_name


def conversation_closed(invitation: Invitation) -> bool:
    """A conversation ends when either side leaves the record or the site; it stays readable."""
    if invitation.recipient_id is None or invitation.sender_id is None:
        return True
    return other_is_former_holder(invitation, invitation.recipient_user)


def message_send(*, invitation: Invitation, user: AbstractBaseUser, body: str) -> Message:
    """Write in an accepted invitation's conversation."""
    body = _clean(body, label="message", low=1, high=BODY_MAX)
    participants = {invitation.sender_id, invitation.recipient_user_id}
    if user.pk not in participants:
        raise CollaborationError("Only the two people in a conversation can write in it.")
    if invitation.status != Invitation.Status.ACCEPTED:
        raise CollaborationError("Messages can be sent once the invitation is accepted.")
    if conversation_closed(invitation):
        raise CollaborationError(
            "This conversation is closed: one of you no longer holds their record."
        )
    if blocked_between(*participants):
        raise CollaborationError("This conversation is closed: one of you blocked the other.")
    return Message.objects.create(invitation=invitation, sender=user, body=body)


def conversation_mark_read(*, invitation: Invitation, user: AbstractBaseUser) -> int:
    """Mark the other person's messages as read by ``user``."""
    return (
        invitation.messages.filter(read_at__isnull=True)
        .exclude(sender=user)
        .update(read_at=timezone.now())
    )


# Block and report ------------------------------------------------------------------------


def block_create(*, blocker: AbstractBaseUser, blocked) -> Block:
    """Block a person: neither can invite or write to the other; their pending asks are declined."""
    if blocker.pk == blocked.pk:
        raise CollaborationError("You cannot block yourself.")
    with transaction.atomic():
        block, _ = Block.objects.get_or_create(blocker=blocker, blocked=blocked)
        Invitation.objects.filter(
            sender=blocked, recipient_user=blocker, status=Invitation.Status.PENDING
        ).update(status=Invitation.Status.DECLINED, responded_at=timezone.now())
    return block


def block_delete(*, blocker: AbstractBaseUser, block_id: int) -> bool:
    deleted, _ = Block.objects.filter(blocker=blocker, pk=block_id).delete()
    return bool(deleted)


def blocks_of(user) -> list[Block]:
    return list(
        Block.objects.filter(blocker=user)
        .select_related("blocked__profile__author")
        .order_by("-created_at")
    )


def report_abuse(*, reporter: AbstractBaseUser, invitation: Invitation, reason: str) -> Report:
    """Report the other person in an invitation or conversation to staff."""
    reason = _clean(reason, label="reason", low=REASON_MIN, high=REASON_MAX)
    if reporter.pk not in (invitation.sender_id, invitation.recipient_user_id):
        raise CollaborationError("Only the two people in a conversation can report it.")
    return Report.objects.create(
        reporter=reporter,
        kind=Report.Kind.ABUSE,
        reported_user=other_party(invitation, reporter),
        invitation=invitation,
        reason=reason,
        evidence=conversation_transcript(invitation),
    )


GONE = "a deleted account"


def conversation_transcript(invitation: Invitation) -> str:
    """The invitation and every message after it as plain text, oldest first."""
    lines = [
        f"{invitation.created_at:%Y-%m-%d %H:%M} {invitation.sender or GONE} invites "
        f"{invitation.recipient_user or GONE} ({invitation.status}) on: {invitation.topic}",
        invitation.message,
    ]
    for message in invitation.messages.select_related("sender"):
        lines += ["", f"{message.created_at:%Y-%m-%d %H:%M} {message.sender}:", message.body]
    return "\n".join(lines)


def report_misattribution(
    *, reporter: AbstractBaseUser, author: Author, work: Work, reason: str
) -> tuple[Report, bool]:
    """Report that a work on a record is not the researcher's; return (report, created)."""
    reason = _clean(reason, label="reason", low=REASON_MIN, high=REASON_MAX)
    if not Authorship.objects.filter(author=author, work=work).exists():
        raise CollaborationError("This work is not on this researcher's record.")
    open_report = Report.objects.filter(
        reporter=reporter, author=author, work=work, status=Report.Status.OPEN
    ).first()
    if open_report is not None:
        return open_report, False
    report = Report.objects.create(
        reporter=reporter,
        kind=Report.Kind.MISATTRIBUTION,
        author=author,
        work=work,
        reason=reason,
    )
    return report, True


def _unlink_by_staff(report: Report, actor) -> dict:
    """Take the reported work off the record and keep later imports from linking it again."""
    LinkConstraint.objects.filter(
        author_id=report.author_id,
        work_id=report.work_id,
        other_author__isnull=True,
        other_work__isnull=True,
    ).delete()
    LinkConstraint.objects.create(
        kind=LinkConstraint.Kind.CANNOT_LINK,
        author_id=report.author_id,
        work_id=report.work_id,
        source=Source.STAFF,
        reason=f"Misattribution report {report.pk} upheld: {report.reason}"[:2000],
        created_by=actor,
    )
    removed, _ = Authorship.objects.filter(
        author_id=report.author_id, work_id=report.work_id
    ).delete()
    profile = Profile.objects.filter(author_id=report.author_id).first()
    if profile is not None:
        profile.pinned_works.remove(report.work_id)
    return {"authorship_removed": bool(removed)}


def _decide(report: Report, actor, status: str) -> Report:
    report = Report.objects.select_for_update().get(pk=report.pk)
    if report.status != Report.Status.OPEN:
        raise CollaborationError(f"Report {report.pk} was already {report.status}.")
    report.status = status
    report.handled_by = actor
    report.handled_at = timezone.now()
    report.save(update_fields=["status", "handled_by", "handled_at"])
    return report


def report_uphold(*, report: Report, actor: AbstractBaseUser) -> Report:
    """Staff agree with the report. A misattributed work leaves the record for good."""
    with transaction.atomic():
        report = _decide(report, actor, Report.Status.UPHELD)
        data = {"kind": report.kind}
        if report.kind == Report.Kind.MISATTRIBUTION:
            data.update(_unlink_by_staff(report, actor), work_id=report.work_id)
            author_id = report.author_id

            def follow_up() -> None:
                from catalogue import tasks

                tasks.refresh_author_metrics.delay([author_id])
                authors_changed.send(sender=Report, author_ids=[author_id])
                report_upheld.send(sender=Report, author_id=author_id)

            transaction.on_commit(follow_up)
        audit_record(actor=actor, action="report_uphold", target=report, data=data)
    return report


def report_dismiss(*, report: Report, actor: AbstractBaseUser) -> Report:
    """Staff find nothing to act on."""
    with transaction.atomic():
        report = _decide(report, actor, Report.Status.DISMISSED)
        audit_record(actor=actor, action="report_dismiss", target=report, data={})
    return report


def notifications_mark_read(*, user: AbstractBaseUser, ids=None) -> int:
    queryset = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        queryset = queryset.filter(pk__in=list(ids))
    return queryset.update(read_at=timezone.now())

"""The people layer: claimed profiles, claims, follows and collaboration."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from catalogue.models import Author, Work

MAX_PINNED_WORKS = 5


class Profile(models.Model):
    """One per claimed author record: what its owner says about themselves."""

    author = models.OneToOneField(Author, on_delete=models.CASCADE, related_name="profile")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    tagline = models.CharField(max_length=200, blank=True)
    homepage = models.URLField(max_length=500, blank=True)
    open_to_collaborate = models.BooleanField(default=False)
    pinned_works = models.ManyToManyField(Work, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Profile of {self.author}"


class ClaimQuerySet(models.QuerySet):
    def active(self):
        return self.filter(status__in=Claim.ACTIVE_STATUSES)


class Claim(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DISPUTED = "disputed", "Disputed"

    class Method(models.TextChoices):
        ORCID = "orcid", "ORCID sign-in"
        EMAIL = "email", "Institutional email"
        EVIDENCE = "evidence", "Evidence reviewed by staff"

    # A claim that still counts: it holds the record or may come to hold it.
    ACTIVE_STATUSES = (Status.PENDING, Status.APPROVED, Status.DISPUTED)
    # An active claim that staff have not decided yet.
    WAITING_STATUSES = (Status.PENDING, Status.DISPUTED)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="claims"
    )
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="claims")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    method = models.CharField(max_length=16, choices=Method.choices)
    evidence = models.TextField(blank=True)
    evidence_links = models.JSONField(default=list, blank=True)
    verified_orcid = models.CharField(max_length=19, blank=True)
    verified_email = models.EmailField(blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_note = models.TextField(blank=True, help_text="Shown to the claimant.")
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["author"],
                condition=Q(status="approved"),
                name="claim_one_approved_per_author",
            ),
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="approved"), name="claim_one_approved_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} claims {self.author} ({self.status})"


class Follow(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="follows")
    created_at = models.DateTimeField(auto_now_add=True)
    # Set while the follower asked to hear about new citations of the author's works:
    # citations linked after this are announced. None: no citation alerts.
    citation_alerts_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "author"], name="follow_once")]
        indexes = [models.Index(fields=["author", "user"], name="follow_author_idx")]

    def __str__(self) -> str:
        return f"{self.user} follows {self.author}"


class Preferences(models.Model):
    """Per-user settings for the following feed and the e-mail digest."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    email_digest = models.BooleanField(default=False)
    following_seen_at = models.DateTimeField(null=True, blank=True)
    digest_sent_at = models.DateTimeField(null=True, blank=True)
    # Works stored after this go into the next digest (set on opting in and on each send);
    # digest_sent_at says only when one was last sent.
    digest_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "preferences"

    def __str__(self) -> str:
        return f"Preferences of {self.user}"


class NotificationQuerySet(models.QuerySet):
    def outside_conversations(self):
        """Notifications that say nothing of a conversation (who invited whom, about what)."""
        return self.exclude(kind__in=Notification.CONVERSATION_KINDS)


class Notification(models.Model):
    class Kind(models.TextChoices):
        NEW_WORK = "new_work", "New work"
        NEW_CITATION = "new_citation", "New citation"
        CLAIMED = "claimed", "Record claimed"
        INVITATION = "invitation", "Invitation"
        MESSAGE = "message", "Message"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    # Members' private conversations: their topic, and who answered whose invitation.
    CONVERSATION_KINDS = (Kind.INVITATION, Kind.MESSAGE)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "work"],
                condition=Q(work__isnull=False),
                name="notification_once_per_work",
            )
        ]

    def __str__(self) -> str:
        return self.text


class Invitation(models.Model):
    """A request to collaborate; accepted, it becomes a conversation."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"

    # Nothing one member does deletes what the other wrote: when a side goes (a claim
    # withdrawn, an account deleted) the invitation and its conversation stay. The record
    # each side held when it was sent is kept, so the other can still see who wrote.
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="invitations_sent",
    )
    sender_author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    recipient = models.ForeignKey(
        Profile, null=True, on_delete=models.SET_NULL, related_name="invitations"
    )
    recipient_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="invitations_received",
    )
    recipient_author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    topic = models.CharField(max_length=200)
    message = models.TextField(max_length=2000)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["sender", "recipient"],
                condition=Q(status="pending"),
                name="invitation_one_pending_per_pair",
            )
        ]

    def __str__(self) -> str:
        return f"Invitation {self.pk}"


class Message(models.Model):
    invitation = models.ForeignKey(Invitation, on_delete=models.CASCADE, related_name="messages")
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    body = models.TextField(max_length=5000)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"Message {self.pk} in invitation {self.invitation_id}"


class Block(models.Model):
    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker} blocks {self.blocked}"


class Report(models.Model):
    """A report to staff: an abusive message or invitation, or a misattributed work."""

    class Kind(models.TextChoices):
        ABUSE = "abuse", "Abusive contact"
        MISATTRIBUTION = "misattribution", "Misattributed work"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        UPHELD = "upheld", "Upheld"
        DISMISSED = "dismissed", "Dismissed"

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Deleting the reported account keeps the report: it is the reporter's writing.
    reported_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A conversation ends with the recipient's claim; the report keeps its own copy.
    invitation = models.ForeignKey(
        Invitation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    message = models.ForeignKey(
        Message, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    evidence = models.TextField(
        blank=True,
        help_text="The reported invitation and conversation as they stood when reported.",
    )
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="reports"
    )
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.TextField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="abuse")
                | Q(kind="misattribution", author__isnull=False, work__isnull=False),
                name="report_has_target",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} report {self.pk}"

"""Staff decisions: pairs that may be one record, and links later imports obey."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from catalogue.fields import JSONField
from catalogue.models.authors import Author
from catalogue.models.common import Source
from catalogue.models.works import Work


class Decided(models.Model):
    """Something raised for a person to decide: when it was raised, who decided and when."""

    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class MergeCandidate(Decided):
    """Two works or two authors that may be one; staff decide."""

    class Kind(models.TextChoices):
        WORK = "work", "Works"
        AUTHOR = "author", "Authors"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        MERGED = "merged", "Merged"
        KEPT_APART = "kept_apart", "Kept apart"
        # A merge made the pair one record, or turned it into a pair already raised.
        SUPERSEDED = "superseded", "Superseded by a merge"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    work_a = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    work_b = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    author_a = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    author_b = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(max_length=300)
    score = models.FloatField(default=0.0)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        kind="work",
                        work_a__isnull=False,
                        work_b__isnull=False,
                        author_a__isnull=True,
                        author_b__isnull=True,
                    )
                    | Q(
                        kind="author",
                        author_a__isnull=False,
                        author_b__isnull=False,
                        work_a__isnull=True,
                        work_b__isnull=True,
                    )
                ),
                name="merge_candidate_one_pair",
            ),
            models.UniqueConstraint(fields=["work_a", "work_b"], name="merge_candidate_work_pair"),
            models.UniqueConstraint(
                fields=["author_a", "author_b"], name="merge_candidate_author_pair"
            ),
        ]

    def __str__(self) -> str:
        left, right = (
            (self.work_a, self.work_b)
            if self.kind == self.Kind.WORK
            else (self.author_a, self.author_b)
        )
        return f"{left} ~ {right}"


class LinkConstraint(models.Model):
    """A staff or owner decision that later imports obey."""

    class Kind(models.TextChoices):
        MUST_LINK = "must_link", "Must link"
        CANNOT_LINK = "cannot_link", "Cannot link"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Either author + work ("this work is / is not theirs") or author + other_author
    # ("these records are / are not one person") or work + other_work.
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="link_constraints"
    )
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="link_constraints"
    )
    other_author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    other_work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    reason = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        author__isnull=False,
                        work__isnull=False,
                        other_author__isnull=True,
                        other_work__isnull=True,
                    )
                    | Q(
                        author__isnull=False,
                        other_author__isnull=False,
                        work__isnull=True,
                        other_work__isnull=True,
                    )
                    | Q(
                        work__isnull=False,
                        other_work__isnull=False,
                        author__isnull=True,
                        other_author__isnull=True,
                    )
                ),
                name="link_constraint_one_pair",
            ),
            models.UniqueConstraint(
                fields=["author", "work"],
                condition=Q(other_author__isnull=True, other_work__isnull=True),
                name="link_constraint_author_work_once",
            ),
            models.UniqueConstraint(
                fields=["author", "other_author"],
                condition=Q(work__isnull=True),
                name="link_constraint_author_pair_once",
            ),
            models.UniqueConstraint(
                fields=["work", "other_work"],
                condition=Q(author__isnull=True),
                name="link_constraint_work_pair_once",
            ),
        ]

    def __str__(self) -> str:
        left = self.author or self.work
        right = self.other_author or self.other_work or self.work
        return f"{self.get_kind_display()}: {left} / {right}"


class SplitProposal(Decided):
    """A record whose works fall into groups that look like different people.

    Raised by the identity checks (co-author circles, subjects and decades that
    share nothing); staff or the owner split it or keep it whole.
    """

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        SPLIT = "split", "Split"
        KEPT_WHOLE = "kept_whole", "Kept whole"
        SUPERSEDED = "superseded", "Superseded by a later check"

    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="split_proposals")
    # [{"work_ids": [...], "summary": "2001-2005; co-authors A, B; topics X"}], largest first.
    groups = JSONField(default=list)
    reason = models.CharField(max_length=300)
    score = models.FloatField(default=0.0, help_text="How surely the groups are different people.")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )

    class Meta:
        ordering = ["-score", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["author"], condition=Q(status="open"), name="split_proposal_one_open"
            )
        ]

    def __str__(self) -> str:
        return f"Split {self.author} into {len(self.groups)}"


class IdentityRequest(Decided):
    """An owner's word on who is who: "that record is me too", "that byline is mine",
    "that work is not mine". Applied at once on id-level proof, else staff review it."""

    class Kind(models.TextChoices):
        JOIN_RECORD = "join_record", "That record is me too"
        JOIN_BYLINE = "join_byline", "That byline is mine"
        LEAVE_WORK = "leave_work", "That work is not mine"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for staff"
        APPLIED = "applied", "Applied"
        REJECTED = "rejected", "Turned down"
        UNDONE = "undone", "Undone"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="identity_requests")
    other_author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    position = models.PositiveIntegerField(null=True, blank=True)
    evidence = models.CharField(max_length=300, blank=True)
    id_level = models.BooleanField(default=False, help_text="Proved by one ORCID or source id.")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    audit_event = models.ForeignKey(
        "publications.AuditEvent",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="join_record", other_author__isnull=False, work__isnull=True)
                    | Q(kind__in=["join_byline", "leave_work"], other_author__isnull=True)
                    & Q(work__isnull=False)
                ),
                name="identity_request_one_target",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.author})"

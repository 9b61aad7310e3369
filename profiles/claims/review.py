"""What staff see when they review a claim: the claim, the record and the claimant side by side."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from catalogue.models import AuditEvent, Author, Authorship
from profiles.claims import proof
from profiles.models import Claim, Follow, Profile, Report

RECENT = 8


@dataclass
class ClaimReview:
    claim: Claim
    competing: list[Claim]  # other claims on the same record, newest first
    record: dict
    claimant: dict
    holder: Claim | None = None  # the claim of whoever holds the record now
    holds: bool = False  # this claimant holds the record (approved, or back in review)

    @property
    def institutional(self) -> bool:
        """The claim carries a confirmed institutional address: evidence shown first."""
        return self.claim.method == Claim.Method.EMAIL and bool(self.claim.verified_email)


def _record(author: Author) -> dict:
    domains = proof.affiliated_domains(author)
    works = (
        Authorship.objects.filter(author=author)
        .select_related("work")
        .order_by("-work__publication_date", "-work_id")
    )
    return {
        "author": author,
        "domains": domains,
        "works_count": works.count(),
        "recent_works": [a.work for a in works[:RECENT]],
        "institution": author.last_known_institution,
    }


def _claimant(user) -> dict:
    from allauth.account.models import EmailAddress
    from allauth.socialaccount.models import SocialAccount

    return {
        "user": user,
        "emails": list(EmailAddress.objects.filter(user=user).order_by("-primary", "email")),
        "orcids": list(
            SocialAccount.objects.filter(user=user, provider="orcid").values_list("uid", flat=True)
        ),
        "claims": list(
            Claim.objects.filter(user=user).select_related("author").order_by("-created_at")
        ),
        "follows": Follow.objects.filter(user=user).count(),
        "reports": Report.objects.filter(reporter=user).count(),
        "events": list(AuditEvent.objects.filter(actor=user).order_by("-created_at")[:RECENT]),
    }


def claim_review(claim: Claim) -> ClaimReview:
    """Everything staff weigh to decide one claim."""
    author = Author.objects.select_related("last_known_institution").get(pk=claim.author_id)
    user = get_user_model().objects.get(pk=claim.user_id)
    competing = list(
        Claim.objects.filter(author_id=claim.author_id)
        .exclude(pk=claim.pk)
        .select_related("user")
        .order_by("-created_at")
    )
    holder_id = Profile.objects.filter(author_id=claim.author_id).values_list("user_id").first()
    holder_id = holder_id[0] if holder_id else None
    active = [claim, *competing]
    holder = next(
        (
            c
            for c in active
            if c.status == Claim.Status.APPROVED
            or (c.status in Claim.WAITING_STATUSES and c.user_id == holder_id)
        ),
        None,
    )
    holds = holder is not None and holder.pk == claim.pk
    return ClaimReview(
        claim,
        competing,
        _record(author),
        _claimant(user),
        holder=None if holds else holder,
        holds=holds,
    )

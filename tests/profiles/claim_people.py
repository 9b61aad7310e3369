"""Builders for the accounts claim tests need: confirmed emails, ORCID sign-ins, held records."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount

from profiles import claims
from profiles.models import Claim
from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"  # UserFactory's password
ORCID = "0000-0002-1825-0097"  # a valid check digit
OTHER_ORCID = "0000-0001-5109-3700"


def person(username: str, *, email: str | None = None, confirmed: bool = True, **extra):
    """A user whose email address is known to allauth (confirmed unless told otherwise)."""
    user = UserFactory(username=username, email=email or f"{username}@example.org", **extra)
    EmailAddress.objects.create(user=user, email=user.email, verified=confirmed, primary=True)
    return user


def with_orcid(user, orcid: str = ORCID):
    SocialAccount.objects.create(user=user, provider="orcid", uid=orcid)
    return user


def holds(user, author) -> Claim:
    """``user`` holds ``author`` through an approved ORCID claim."""
    author.orcid = author.orcid or ORCID
    author.save(update_fields=["orcid"])
    if not claims.user_orcids(user):
        with_orcid(user, author.orcid)
    return claims.claim_create(user=user, author=author, method="orcid")

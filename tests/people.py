"""The people tests talk about, for the whole suite (a plugin tests/conftest.py registers).

Fixtures: a record (``author``) is held by ``owner`` (approved ORCID claim) and
followed by ``follower``; ``other_owner`` holds another record; ``stranger`` has an
account and no tie to the record; ``staff`` reviews claims and may do anything in
the admin. A test that needs someone else builds them with ``person`` and the
helpers below, which are plain functions.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount, SocialApp
from django.contrib.sites.models import Site
from django.test import Client
from django.utils import timezone

from catalogue.models import Work
from profiles.claims import proof
from profiles.claims import services as claims
from profiles.models import Claim, Follow, Profile
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory

PASSWORD = "correct horse battery staple"  # UserFactory's password
ORCID = "0000-0002-1825-0097"  # a valid check digit
OTHER_ORCID = "0000-0001-5109-3700"
# Valid ORCID iDs (check digits computed), one per claimed researcher the tests need.
ORCIDS = ["0000-0002-9079-593X", "0000-0003-1419-2405", "0000-0001-9999-9990"]


def person(username: str, *, email: str | None = None, confirmed: bool = True, **extra):
    """A user whose email address is known to allauth (confirmed unless told otherwise)."""
    user = UserFactory(username=username, email=email or f"{username}@example.org", **extra)
    EmailAddress.objects.create(user=user, email=user.email, verified=confirmed, primary=True)
    return user


def signed_in(user) -> Client:
    """A test client with ``user``'s session (no password is checked)."""
    client = Client()
    client.force_login(user)
    return client


def with_orcid(user, orcid: str = ORCID):
    SocialAccount.objects.create(user=user, provider="orcid", uid=orcid)
    return user


def holds(user, author) -> Claim:
    """``user`` holds ``author`` through an approved ORCID claim."""
    author.orcid = author.orcid or ORCID
    author.save(update_fields=["orcid"])
    if not proof.user_orcids(user):
        with_orcid(user, author.orcid)
    return claims.claim_create(user=user, author=author, method="orcid")


def orcid_for(number: int) -> str:
    """A valid ORCID iD (ISO 7064 check digit) made from ``number``."""
    digits = f"{9000000000 + number:015d}"
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    full = digits + ("X" if check == 10 else str(check))
    return "-".join(full[i : i + 4] for i in range(0, 16, 4))


def researcher(username: str, name: str, *, orcid: str, open_to_collaborate: bool = True):
    """A user holding their own record (approved ORCID claim), open to collaborate or not."""
    author = AuthorFactory(display_name=name, orcid=orcid)
    user = person(username, email=f"{username}.private@example.net")
    holds(user, author)
    Profile.objects.filter(user=user).update(open_to_collaborate=open_to_collaborate)
    user.refresh_from_db()
    return user


def work_of(author, *, title: str, days_ago: float = 0) -> Work:
    """A work of ``author`` first stored ``days_ago`` days ago."""
    work = WorkFactory(title=title)
    AuthorshipFactory(work=work, author=author)
    if days_ago:
        Work.objects.filter(pk=work.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
        work.refresh_from_db()
    return work


@pytest.fixture
def author():
    return AuthorFactory(display_name="Grace Hopper", orcid=ORCID)


@pytest.fixture
def owner(author):
    user = with_orcid(person("owner", email="grace.private@example.net"))
    holds(user, author)
    return user


@pytest.fixture
def other_owner():
    """Holds a record of their own, not ``author``."""
    return researcher("other", "Other Record", orcid=orcid_for(2))


@pytest.fixture
def follower(author):
    user = person("follower")
    Follow.objects.create(user=user, author=author)
    return user


@pytest.fixture
def stranger():
    return person("stranger")


@pytest.fixture
def staff():
    return person("staff", is_staff=True, is_superuser=True)


@pytest.fixture
def orcid_app(db):
    """ORCID sign-in set up the way an operator does it in the admin."""
    app = SocialApp.objects.create(
        provider="orcid", name="ORCID", client_id="APP-TEST", secret="not-a-real-secret"
    )
    app.sites.add(Site.objects.get_current())
    return app

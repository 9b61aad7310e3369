"""Builders for the following and collaboration tests: claimed researchers and their works."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from profiles.models import Profile
from publications.models import Work
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.profiles.claim_people import holds, person

# Valid ORCID iDs (check digits computed), one per claimed researcher the tests need.
ORCIDS = ["0000-0002-9079-593X", "0000-0003-1419-2405", "0000-0001-9999-9990"]


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

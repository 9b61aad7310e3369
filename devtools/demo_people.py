"""The people of the demo: accounts, claims, profiles, follows and a conversation.

No import carries these, so the ``demo`` command makes them through the same
services a person's clicks go through (``devtools/demo/people.json`` says
who does what). Every step can run again: what is already there is left alone.
The accounts get the password ``demo`` on a DEBUG site (the embedded run), so a
person trying the site can sign in as them; elsewhere they cannot sign in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model

from catalogue.models import Author, Authorship, Work
from devtools.demo_load import DEMO_DIR
from profiles.claims import ownership
from profiles.claims.services import claim_approve, claim_create
from profiles.collaboration import services as collaboration
from profiles.following import services as following
from profiles.models import Claim, Invitation, Profile

PEOPLE_FILE = DEMO_DIR / "people.json"
DEMO_PASSWORD = "demo"  # noqa: S105 - the fictional accounts of a DEBUG site only


@dataclass
class PeopleLoaded:
    accounts: int = 0
    claims: int = 0
    follows: int = 0
    messages: int = 0


def demo_people_load(path: Path = PEOPLE_FILE) -> PeopleLoaded:
    """Make the demo's accounts and what they do; return how many of each there are."""
    people = json.loads(path.read_text("utf-8"))
    staff = _account(people["staff"], is_staff=True)
    users = {entry["key"]: _account(entry) for entry in people["users"]}
    for entry in people["claims"]:
        _claim(users[entry["user"]], entry, staff)
    for entry in people["profiles"]:
        _profile(users[entry["user"]], entry)
    for entry in people["works_added"]:
        _work_added(users[entry["user"]], entry["identifier"])
    for entry in people["follows"]:
        _follow(users[entry["user"]], entry)
    for key in people["email_digest"]:
        following.preferences_update(user=users[key], email_digest=True)
    for entry in people["conversations"]:
        _conversation(users, entry)
    return PeopleLoaded(
        accounts=len(users),
        claims=Claim.objects.filter(user__in=users.values(), status=Claim.Status.APPROVED).count(),
        follows=sum(user.follows.count() for user in users.values()),
        messages=sum(
            invitation.messages.count()
            for invitation in Invitation.objects.filter(sender__in=users.values())
        ),
    )


def demo_accounts() -> dict[str, str]:
    """The demo's accounts by key, with their email addresses (to sign in as them)."""
    people = json.loads(PEOPLE_FILE.read_text("utf-8"))
    return {entry["key"]: entry["email"] for entry in people["users"]}


def _account(entry: dict, *, is_staff: bool = False):
    email = entry["email"]
    user, created = get_user_model().objects.get_or_create(
        username=entry.get("username") or email,
        defaults={
            "email": email,
            "first_name": entry.get("first_name", ""),
            "last_name": entry.get("last_name", ""),
            "is_staff": is_staff,
        },
    )
    if created:
        if settings.DEBUG and not is_staff:
            user.set_password(DEMO_PASSWORD)
        else:
            user.set_unusable_password()
        user.save(update_fields=["password"])
        EmailAddress.objects.get_or_create(
            user=user, email=email, defaults={"verified": True, "primary": True}
        )
    return user


def _claim(user, entry: dict, staff) -> None:
    author = Author.objects.get(openalex_id=entry["author"])
    if Profile.objects.filter(author=author, user=user).exists():
        return
    claim = Claim.objects.filter(user=user, author=author, status=Claim.Status.PENDING).first()
    if claim is None:
        claim = claim_create(
            user=user,
            author=author,
            method=entry["method"],
            evidence=entry.get("evidence", ""),
            links=entry.get("links", ()),
        )
    claim_approve(claim=claim, actor=staff, note=entry.get("note", ""))


def _owned(user) -> Profile:
    return Profile.objects.select_related("author").get(user=user)


def _profile(user, entry: dict) -> None:
    profile = _owned(user)
    ownership.profile_update(
        profile=profile,
        actor=user,
        tagline=entry["tagline"],
        homepage=entry["homepage"],
        open_to_collaborate=entry["open_to_collaborate"],
    )
    for openalex_id in entry["pinned"]:
        work = Work.objects.get(openalex_id=openalex_id)
        ownership.work_pin(profile=profile, work=work, actor=user)


def _work_added(user, identifier: str) -> None:
    """The owner adds a work held here under a variant of their name (a duplicate record)."""
    profile = _owned(user)
    work = Work.objects.get(doi=identifier)
    if not Authorship.objects.filter(author=profile.author, work=work).exists():
        ownership.work_add(profile=profile, identifier=identifier, actor=user)


def _follow(user, entry: dict) -> None:
    author = Author.objects.get(openalex_id=entry["author"])
    following.follow_create(user=user, author=author)
    if entry["citation_alerts"]:
        following.follow_citation_alerts_set(user=user, author=author, on=True)


def _conversation(users: dict, entry: dict) -> None:
    sender, recipient = users[entry["sender"]], users[entry["recipient"]]
    if Invitation.objects.filter(sender=sender, recipient_user=recipient).exists():
        return
    invitation = collaboration.invitation_create(
        sender=sender, profile=_owned(recipient), topic=entry["topic"], message=entry["message"]
    )
    invitation = collaboration.invitation_accept(
        invitation=invitation, user=recipient, reply=entry["reply"]
    )
    for key, body in entry["messages"]:
        collaboration.message_send(invitation=invitation, user=users[key], body=body)

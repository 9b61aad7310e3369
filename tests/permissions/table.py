"""The permission table's people, rows and how a row is tried (tests/permissions/).

Each row is one action; each person tries it on the same world (conftest.py),
which is rolled back after each try. A row says the answer each person gets,
who sees the private text the answer may carry (evidence, e-mail addresses,
message text, notification and token text; absent for everyone else), and,
for writes, whose try changed something.

The people: a stranger (not signed in); a member without a record; a follower
of the record; the owner, who holds it (approved claim); another owner, who
holds another record; staff without permissions; staff with only the view
permissions; staff with the permissions each staff step needs; a superuser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import reverse

STRANGER, MEMBER, FOLLOWER, OWNER, OTHER = "stranger", "member", "follower", "owner", "other"
STAFF, VIEWER, GRANTED, SUPER = "staff", "staff_viewer", "staff_granted", "superuser"
PEOPLE = [STRANGER, MEMBER, FOLLOWER, OWNER, OTHER, STAFF, VIEWER, GRANTED, SUPER]
SIGNED_IN = set(PEOPLE) - {STRANGER}
MEMBERS = {MEMBER, FOLLOWER, OWNER, OTHER}
STAFF_SIDE = {STAFF, VIEWER, GRANTED, SUPER}
READERS = {VIEWER, GRANTED, SUPER}  # the admin lets them view
DECIDERS = {GRANTED, SUPER}  # the admin lets them change

VIEW_PERMS = [
    "publications.view_importrun",
    "publications.view_mergecandidate",
    "publications.view_author",
    "profiles.view_claim",
    "profiles.view_report",
    "profiles.view_notification",
]
STAFF_PERMS = [
    *VIEW_PERMS,
    "publications.add_importrun",
    "publications.change_importrun",
    "publications.change_mergecandidate",
    "publications.change_author",
    "profiles.change_claim",
    "profiles.change_report",
]

# Private text: each must reach only the people a row names.
EVIDENCE = "I was a postdoc in this group; my staff page lists EVIDENCE-7c1."
CLAIM_EMAIL = "member.private@uni.example"
TOPIC = "TOPIC-4e2 data sharing"
MESSAGE = "MESSAGE-TEXT-9d5: here is my private phone number."
INVITE_TEXT = "INVITATION-TEXT-3a8: would you like to work together on this?"
NOTE = "NOTE-TEXT-6b0 a new work"

LOGIN = "login"  # a redirect to the site's sign-in page
ADMIN_LOGIN = "admin-login"  # a redirect to the admin's sign-in page


@dataclass
class Row:
    """One action: how to ask, the answer each person gets, and what it may show or change."""

    name: str
    method: str
    url: Callable[[SimpleNamespace], str]
    answers: dict[str, int | str]
    data: dict | Callable[[SimpleNamespace], dict] = field(default_factory=dict)
    api: bool = False
    # Private text in the answer: shown to ``sees``, to no one else.
    private: tuple[str, ...] = ()
    sees: frozenset[str] = frozenset()
    # For writes: whether the try changed something, and whose try should.
    changed: Callable[[SimpleNamespace], bool] | None = None
    acts: frozenset[str] = frozenset()


def answers(default, **people) -> dict[str, int | str]:
    """``default`` for everyone, except the people named (by persona)."""
    return {who: people.get(who, default) for who in PEOPLE}


def by(groups: dict) -> dict[str, int | str]:
    """Answers given per group of people: ``{frozenset_or_set: answer}``; all must be covered."""
    table = {}
    for group, answer in groups.items():
        for who in group if isinstance(group, set | frozenset) else [group]:
            table[who] = answer
    assert set(table) == set(PEOPLE), set(PEOPLE) - set(table)
    return table


def page(*, signed_in, stranger=LOGIN):
    return answers(signed_in, stranger=stranger)


def only(allowed: set, ok, *, refused, stranger=LOGIN) -> dict:
    return by({frozenset(allowed): ok, frozenset(SIGNED_IN - allowed): refused, STRANGER: stranger})


def admin_only(allowed: set, ok) -> dict:
    """An admin page: members go to the admin's sign-in; staff without the permission, 403."""
    return by(
        {
            frozenset(allowed): ok,
            frozenset(STAFF_SIDE - allowed): 403,
            frozenset(MEMBERS | {STRANGER}): ADMIN_LOGIN,
        }
    )


def api_only(allowed: set, ok, *, refused=403) -> dict:
    return by({frozenset(allowed): ok, frozenset(SIGNED_IN - allowed): refused, STRANGER: 401})


def named_url(name, *args):
    return lambda w: reverse(name, args=[a(w) if callable(a) else a for a in args])


def record(w):
    return w.record.pk


def admin_change(app_model: str, obj: Callable):
    return named_url(f"admin:{app_model}_change", lambda w: obj(w).pk)


PAIR = frozenset({OWNER, OTHER})  # the two people of the conversation
CLAIM_READERS = frozenset({MEMBER} | READERS)


def _ask(client: Client, row: Row, w) -> object:
    data = row.data(w) if callable(row.data) else row.data
    url = row.url(w)
    if row.api:
        send = getattr(client, row.method)
        return send(url, data, content_type="application/json") if data else send(url)
    return getattr(client, row.method)(url, data) if row.method == "post" else client.get(url)


def _outcome(response) -> int | str:
    location = response.get("Location", "") if response.status_code == 302 else ""
    if location.startswith("/admin/login/"):
        return ADMIN_LOGIN
    if location.startswith("/accounts/login/"):
        return LOGIN
    return response.status_code


def _body(response) -> str:
    content = getattr(response, "content", b"")
    return content.decode(errors="replace") if isinstance(content, bytes) else ""


def _try(row: Row, who: str, w) -> list[str]:
    """What went wrong when ``who`` tries ``row``; the world is left as it was."""
    wrong = []
    cache.clear()  # rate limits count per person; each try starts fresh
    with transaction.atomic():
        client = Client()
        if w.people[who] is not None:
            client.force_login(w.people[who])
        response = _ask(client, row, w)
        got, expected = _outcome(response), row.answers[who]
        if got != expected:
            wrong.append(f"{who}: answered {got}, expected {expected}")
        body = _body(response)
        for text in row.private:
            shown = text in body
            if shown != (who in row.sees):
                wrong.append(f"{who}: {text!r} {'shown' if shown else 'not shown'}")
        if row.changed is not None and row.changed(w) != (who in row.acts):
            wrong.append(f"{who}: {'changed' if who not in row.acts else 'did not change'}")
        transaction.set_rollback(True)
    return wrong


def problems(row: Row, w) -> str:
    """Everything that went wrong when each person tried ``row``, one line each."""
    wrong = [problem for who in PEOPLE for problem in _try(row, who, w)]
    return f"{row.name}:\n" + "\n".join(wrong) if wrong else ""

"""Every model the admin offers, tried by each person of the permission table.

A model registered in the admin without a row here fails the first test: the
table covers the whole admin, not the pages someone remembered. Each model's
list and, where the world holds one, its first record's page answer as the
model's permissions say; members and strangers go to the admin's sign-in.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.permissions.table import (
    GRANTED,
    NOTE,
    STAFF_PERMS,
    STAFF_SIDE,
    SUPER,
    TOPIC,
    VIEW_PERMS,
    VIEWER,
    Row,
    admin_only,
    problems,
)

pytestmark = pytest.mark.django_db

REGISTERED = sorted(
    f"{model._meta.app_label}.{model._meta.model_name}" for model in admin.site._registry
)


def _readers(label: str) -> set[str]:
    """Who may view the model's pages: the superuser, and staff granted its view or change."""
    app, model = label.split(".")
    readers = {SUPER}
    for who, perms in ((VIEWER, VIEW_PERMS), (GRANTED, STAFF_PERMS)):
        if {f"{app}.view_{model}", f"{app}.change_{model}"} & set(perms):
            readers.add(who)
    return readers


def _list_row(label: str) -> Row:
    app, model = label.split(".")
    url = reverse(f"admin:{app}_{model}_changelist")
    return Row(f"{label}: list", "get", lambda w: url, admin_only(_readers(label), 200))


def _change_row(label: str) -> Row:
    app, model = label.split(".")
    model_class = _model(label)

    def url(w):
        first = admin.site._registry[model_class].get_queryset(_superuser_request(w)).first()
        pk = first.pk if first is not None else 0
        return reverse(f"admin:{app}_{model}_change", args=[pk])

    return Row(f"{label}: a record's page", "get", url, admin_only(_readers(label), 200))


def _superuser_request(w):
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = w.people[SUPER]
    return request


def test_the_table_covers_every_model_the_admin_offers():
    assert set(ROWS_BY_MODEL) == set(REGISTERED)


ROWS_BY_MODEL = {label: _list_row(label) for label in REGISTERED}


@pytest.mark.parametrize("label", REGISTERED)
def test_who_may_see_each_admin_list(world, label):
    wrong = problems(ROWS_BY_MODEL[label], world)
    assert not wrong, wrong


def test_who_may_see_a_record_of_each_admin_model(world):
    """Each model the world holds a record of: that record's page, tried by everyone."""
    held = [label for label in REGISTERED if _model(label)._default_manager.exists()]
    assert len(held) >= 15, held  # the world is rich enough for the test to mean something
    wrong = [problems(_change_row(label), world) for label in held]
    assert not any(wrong), "\n".join(filter(None, wrong))


def _model(label: str):
    return next(m for m in admin.site._registry if m._meta.label_lower == label)


# A conversation's notifications: its topic and who answered whose invitation stay
# between the two members, for staff with the view permission and superusers alike.
READERS_OF_NOTES = _readers("profiles.notification")
NOTES = reverse("admin:profiles_notification_changelist")
CONVERSATION_ROWS = [
    Row(
        "notifications list: other notifications are listed",
        "get",
        lambda w: NOTES,
        admin_only(READERS_OF_NOTES, 200),
        private=(NOTE,),
        sees=frozenset(READERS_OF_NOTES),
    ),
    Row(
        "notifications list: none of a conversation",
        "get",
        lambda w: NOTES,
        admin_only(READERS_OF_NOTES, 200),
        private=(TOPIC, "accepted your invitation"),
    ),
    Row(
        "notifications list: a search for a conversation's topic finds nothing",
        "get",
        lambda w: NOTES + "?q=TOPIC-4e2",
        admin_only(READERS_OF_NOTES, 200),
        private=(TOPIC, "accepted your invitation"),
    ),
    Row(
        "notifications list: asked for a conversation's kind, shows none",
        "get",
        lambda w: NOTES + "?kind=invitation",
        admin_only(READERS_OF_NOTES, 200),
        private=(TOPIC, "accepted your invitation"),
    ),
    *(
        Row(
            f"a conversation's notification: its {page} page is not there",
            "get",
            lambda w, page=page: reverse(
                f"admin:profiles_notification_{page}", args=[w.conversation_notes[0].pk]
            ),
            # The admin sends a reader of a record it does not hold back to its index.
            admin_only(allowed, 302),
            private=(TOPIC,),
        )
        for page, allowed in (
            ("change", READERS_OF_NOTES),
            ("history", STAFF_SIDE),  # the admin looks for the record before the permission
            ("delete", {SUPER}),
        )
    ),
]


@pytest.mark.parametrize("row", CONVERSATION_ROWS, ids=[row.name for row in CONVERSATION_ROWS])
def test_no_admin_page_tells_of_a_conversation(world, row):
    wrong = problems(row, world)
    assert not wrong, wrong

"""How long an account form takes does not tell whether an address has an account.

Enumeration prevention answers alike for known and new addresses; these tests
time the answers with Django's real password hasher (the suite's MD5 would hide
the cost that could differ) and compare medians of interleaved attempts.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pytest
from django.conf import global_settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.people import person

pytestmark = pytest.mark.django_db

PASSWORD = "a long and unusual passphrase 42"
ATTEMPTS = 4  # each runs the real hasher: about a second
QUICK_ATTEMPTS = 9  # a password reset hashes nothing: more of them even out the noise
# A password hashed for one and not the other puts them 20-fold apart; the same work
# keeps the medians well inside this band even on a busy machine.
LOW, HIGH = 1 / 3, 3.0


@pytest.fixture
def known_addresses(db) -> list[str]:
    """Addresses with an account (made before the real hasher is on: it is slow)."""
    count = max(ATTEMPTS, QUICK_ATTEMPTS) + 1
    return [person(f"known{i}", email=f"known{i}@example.org").email for i in range(count)]


@pytest.fixture
def real_hasher(settings, known_addresses):
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS


def _post(url: str, data: dict, attempt: int) -> float:
    """Seconds to answer one visitor (a fresh client and address: no rate limit is shared)."""
    client = Client(REMOTE_ADDR=f"198.51.100.{attempt + 1}")
    started = time.perf_counter()
    response = client.post(url, data)
    elapsed = time.perf_counter() - started
    assert response.status_code in (200, 302)
    return elapsed


def _medians(known: Callable[[int], float], unknown: Callable[[int], float], attempts: int):
    known(attempts), unknown(attempts)  # warm up: templates, imports, first queries
    times = {"known": [], "unknown": []}
    for attempt in range(attempts):  # interleaved, so a busy spell hits both alike
        times["known"].append(known(attempt))
        times["unknown"].append(unknown(attempt))
    return statistics.median(times["known"]), statistics.median(times["unknown"])


def _assert_alike(known: float, unknown: float) -> None:
    ratio = unknown / known
    assert LOW <= ratio <= HIGH, f"known {known:.3f} s, unknown {unknown:.3f} s ({ratio:.1f}x)"


def _sign_up(email: str, attempt: int) -> float:
    data = {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    return _post(reverse("account_signup"), data, attempt)


def test_sign_up_takes_as_long_for_a_known_address_as_for_a_new_one(known_addresses, real_hasher):
    known, new = _medians(
        lambda i: _sign_up(known_addresses[i], i),
        lambda i: _sign_up(f"new{i}@example.org", i),
        ATTEMPTS,
    )
    _assert_alike(known, new)
    assert get_user_model().objects.filter(email__startswith="new").count() == ATTEMPTS + 1


def test_sign_up_sends_one_mail_whether_or_not_the_address_is_known(known_addresses):
    _sign_up(known_addresses[0], 0)
    _sign_up("new@example.org", 1)
    assert [m.to for m in mail.outbox] == [[known_addresses[0]], ["new@example.org"]]
    assert "already" in mail.outbox[0].body and "confirm" in mail.outbox[1].body.lower()


def _sign_in(email: str, attempt: int) -> float:
    data = {"login": email, "password": "not the password"}
    return _post(reverse("account_login"), data, attempt)


def test_a_failed_sign_in_takes_as_long_for_an_unknown_address(known_addresses, real_hasher):
    known, unknown = _medians(
        lambda i: _sign_in(known_addresses[i], i),
        lambda i: _sign_in(f"nobody{i}@example.org", i),
        ATTEMPTS,
    )
    _assert_alike(known, unknown)


def _reset(email: str, attempt: int) -> float:
    return _post(reverse("account_reset_password"), {"email": email}, attempt)


def test_a_password_reset_takes_as_long_for_an_unknown_address(known_addresses, real_hasher):
    known, unknown = _medians(
        lambda i: _reset(known_addresses[i], i),
        lambda i: _reset(f"nobody{i}@example.org", i),
        QUICK_ATTEMPTS,
    )
    _assert_alike(known, unknown)

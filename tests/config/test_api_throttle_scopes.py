"""Each API request is counted by one throttle, with one read and one write of the cache:
an anonymous one per client address (120 a minute), a signed-in account's per account
(600 a minute)."""

import pytest
from django.core.cache import cache
from django.test import Client

from config.throttles import AnonThrottle, UserThrottle

pytestmark = pytest.mark.django_db

URL = "/api/v1/topics/"


class CountingCache:
    """The cache as a throttle uses it, counting each call."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def get(self, key, default=None):
        self.calls.append(("get", key))
        return cache.get(key, default)

    def set(self, key, value, timeout):
        self.calls.append(("set", key))
        cache.set(key, value, timeout)


@pytest.fixture
def counted(monkeypatch) -> CountingCache:
    cache.clear()
    counting = CountingCache()
    for throttle in (AnonThrottle, UserThrottle):
        monkeypatch.setattr(throttle, "cache", counting)
    return counting


def test_an_anonymous_request_is_counted_once_per_client_address(counted):
    client = Client()
    for _ in range(3):
        assert client.get(URL, REMOTE_ADDR="192.0.2.7").status_code == 200
    key = "throttle_anon_192.0.2.7"
    assert counted.calls == [("get", key), ("set", key)] * 3
    assert len(cache.get(key)) == 3


def test_a_signed_in_account_is_counted_once_per_account(counted, stranger):
    member = Client()
    member.force_login(stranger)
    for _ in range(2):
        assert member.get(URL).status_code == 200
    key = f"throttle_user_{stranger.pk}"
    assert counted.calls == [("get", key), ("set", key)] * 2
    assert len(cache.get(key)) == 2


def test_a_signed_in_account_is_limited_by_its_own_rate(counted, stranger, monkeypatch):
    monkeypatch.setattr(UserThrottle, "rate", "3/min", raising=False)
    member = Client()
    member.force_login(stranger)
    codes = [member.get(URL).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    # Anonymous visitors from the same address keep their own allowance.
    assert Client().get(URL).status_code == 200


def test_anonymous_visitors_are_not_held_to_the_accounts_rate(counted, monkeypatch):
    monkeypatch.setattr(UserThrottle, "rate", "1/min", raising=False)
    client = Client()
    assert [client.get(URL).status_code for _ in range(3)] == [200, 200, 200]

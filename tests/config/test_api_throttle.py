"""API reads are throttled: past the rate, 429 in the one error shape with Retry-After."""

import pytest
from django.test import Client
from rest_framework.settings import api_settings

pytestmark = pytest.mark.django_db

URL = "/api/v1/topics/"


def anon_limit() -> int:
    return int(api_settings.DEFAULT_THROTTLE_RATES["anon"].split("/")[0])


def test_many_anonymous_reads_are_answered_429_in_the_error_shape():
    client = Client()
    codes = [client.get(URL).status_code for _ in range(300)]
    assert codes[: anon_limit()] == [200] * anon_limit()
    assert set(codes[anon_limit() :]) == {429}
    response = client.get(URL)
    body = response.json()
    assert body["error"]["status"] == 429
    assert body["error"]["code"] == "throttled"
    assert set(body) == {"error"}
    assert set(body["error"]) == {"status", "code", "message", "details"}
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= 60
    assert body["error"]["details"] == {"retry_after": retry_after}


def test_the_throttle_counts_per_client_address():
    client = Client()
    for _ in range(anon_limit()):
        client.get(URL)
    assert client.get(URL).status_code == 429
    assert client.get(URL, REMOTE_ADDR="192.0.2.44").status_code == 200


def test_a_forged_forwarded_header_does_not_escape_the_throttle():
    client = Client()
    for n in range(anon_limit()):
        client.get(URL, HTTP_X_FORWARDED_FOR=f"198.51.100.{n % 250}")
    assert client.get(URL, HTTP_X_FORWARDED_FOR="198.51.100.251").status_code == 429


def test_a_signed_in_account_has_its_own_larger_allowance(stranger):
    anonymous = Client()
    for _ in range(anon_limit()):
        anonymous.get(URL)
    assert anonymous.get(URL).status_code == 429
    member = Client()
    member.force_login(stranger)
    assert member.get(URL).status_code == 200

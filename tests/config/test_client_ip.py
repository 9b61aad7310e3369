"""One rule for the client's address: every limit keys on it, and the proxy setting decides it."""

import pytest
from django.test import RequestFactory, override_settings

from config.clientip import client_ip

FORGED = "203.0.113.66"


def request(remote="192.0.2.10", forwarded=None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


@override_settings(TRUSTED_PROXY_COUNT=0)
@pytest.mark.parametrize("forwarded", [None, FORGED, f"{FORGED}, 198.51.100.7", "garbage"])
def test_without_a_trusted_proxy_only_the_socket_address_counts(forwarded):
    assert client_ip(request(forwarded=forwarded)) == "192.0.2.10"


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_one_proxy_the_address_it_appended_counts():
    assert client_ip(request("10.0.0.2", "198.51.100.7")) == "198.51.100.7"
    # What the visitor wrote before the proxy's entry is theirs to forge: ignored.
    assert client_ip(request("10.0.0.2", f"{FORGED}, 198.51.100.7")) == "198.51.100.7"


@override_settings(TRUSTED_PROXY_COUNT=2)
def test_behind_two_proxies_the_second_entry_from_the_right_counts():
    assert client_ip(request("10.0.0.3", f"{FORGED}, 198.51.100.7, 10.0.0.2")) == "198.51.100.7"


@override_settings(TRUSTED_PROXY_COUNT=2)
@pytest.mark.parametrize("forwarded", [None, "", "198.51.100.7", "not-an-ip, 10.0.0.2", " , "])
def test_a_header_that_did_not_come_through_the_proxies_falls_back_to_the_socket(forwarded):
    assert client_ip(request("10.0.0.3", forwarded)) == "10.0.0.3"


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_ipv6_addresses_are_written_one_way():
    assert client_ip(request("10.0.0.2", "2001:DB8:0:0::1")) == "2001:db8::1"


def test_every_limiter_is_wired_to_the_one_rule(settings):
    from allauth.account.adapter import get_adapter
    from axes.helpers import get_client_ip_address
    from rest_framework.settings import api_settings

    from config.throttles import AnonThrottle, UserThrottle

    settings.TRUSTED_PROXY_COUNT = 1
    forwarded = request("10.0.0.2", f"{FORGED}, 198.51.100.7")
    assert settings.RATELIMIT_IP_META_KEY == "config.clientip.client_ip"
    assert get_adapter().get_client_ip(forwarded) == "198.51.100.7"
    assert get_client_ip_address(forwarded) == "198.51.100.7"
    assert AnonThrottle().get_ident(forwarded) == "198.51.100.7"
    assert UserThrottle().get_ident(forwarded) == "198.51.100.7"
    classes = [cls.__name__ for cls in api_settings.DEFAULT_THROTTLE_CLASSES]
    assert classes == ["AnonThrottle", "UserThrottle"]


@pytest.mark.django_db
@pytest.mark.urls("tests.config.ratelimit_urls")
class TestForgedHeadersCannotPickABucket:
    def test_without_a_proxy_a_forged_header_shares_the_visitors_bucket(self, client, settings):
        settings.TRUSTED_PROXY_COUNT = 0
        for n in range(2):
            assert (
                client.get("/limited/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}").status_code == 200
            )
        assert client.get("/limited/", HTTP_X_FORWARDED_FOR="198.51.100.99").status_code == 429

    def test_behind_a_proxy_each_visitor_has_a_bucket_of_their_own(self, client, settings):
        settings.TRUSTED_PROXY_COUNT = 1
        proxy = {"REMOTE_ADDR": "10.0.0.2"}
        for _ in range(2):
            client.get("/limited/", HTTP_X_FORWARDED_FOR="198.51.100.1", **proxy)
        assert (
            client.get("/limited/", HTTP_X_FORWARDED_FOR="198.51.100.1", **proxy).status_code == 429
        )
        assert (
            client.get("/limited/", HTTP_X_FORWARDED_FOR="198.51.100.2", **proxy).status_code == 200
        )
        forged = "198.51.100.2, 198.51.100.1"  # the visitor at .1 claiming to be .2
        assert client.get("/limited/", HTTP_X_FORWARDED_FOR=forged, **proxy).status_code == 429


def test_forwarded_proto_is_believed_only_from_a_trusted_proxy(monkeypatch):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "from django.conf import settings as s; print(getattr(s, 'SECURE_PROXY_SSL_HEADER', None))"
    )
    for count, expected in (("0", "None"), ("1", "('HTTP_X_FORWARDED_PROTO', 'https')")):
        result = subprocess.run(
            [sys.executable, "-c", f"import django; django.setup(); {code}"],
            cwd=root,
            env={
                "PATH": "/usr/bin:/bin",
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "TRUSTED_PROXY_COUNT": count,
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.stdout.strip().splitlines()[-1] == expected, result.stderr

"""SITE_URL: the public address that mail, feed and page links start with."""

import os
import re
import socket
import subprocess
import sys
import time
from urllib.request import urlopen

import pytest
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.urls import reverse

from config import env, sites
from pages import cache as pagecache
from tests.config.test_settings import PRODUCTION, ROOT, manage
from tests.factories import AuthorFactory, AuthorshipFactory


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://Scholar.Example.org/", "https://scholar.example.org"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("https://[::1]:8443", "https://[::1]:8443"),
    ],
)
def test_site_url_is_kept_as_scheme_and_host(monkeypatch, value, expected):
    monkeypatch.setenv("SITE_URL", value)
    assert env.site_url("SITE_URL", None) == expected


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("scholar.example.org", "expected an address like"),
        ("ftp://scholar.example.org", "expected an address like"),
        ("https://", "expected an address like"),
        ("https://scholar.example.org/pages", "no path, query or user"),
        ("https://scholar.example.org/?x=1", "no path, query or user"),
        ("https://me:pw@scholar.example.org", "no path, query or user"),
        ("https://scholar.example.org:port", "cannot parse"),
    ],
)
def test_a_malformed_site_url_is_refused(monkeypatch, value, problem):
    monkeypatch.setenv("SITE_URL", value)
    with pytest.raises(env.SettingError, match=problem):
        env.site_url("SITE_URL", None)


def test_unset_site_url_falls_back_to_the_first_named_allowed_host(monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    hosts = ["*.example.org", ".example.org", "scholar.example.org", "other.example.org"]
    assert env.site_url("SITE_URL", None, allowed_hosts=hosts) == "https://scholar.example.org"
    assert env.site_url("SITE_URL", "http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    with pytest.raises(env.SettingError, match="required when DEBUG is off"):
        env.site_url("SITE_URL", None, allowed_hosts=["*"])


def test_a_bad_site_url_stops_startup_naming_the_variable():
    result = manage("check", SITE_URL="scholar.example.org/pages")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith("error: SITE_URL: ")
    assert "Traceback" not in result.stderr


def test_production_without_a_named_host_must_set_site_url():
    result = manage("check", **{**PRODUCTION, "ALLOWED_HOSTS": ".example.org"})
    assert result.returncode != 0
    assert "error: SITE_URL: required when DEBUG is off" in result.stderr


def test_absolute_url_joins_site_url_and_path(settings):
    settings.SITE_URL = "https://scholar.example.org"
    assert sites.absolute_url("/works/1-x/") == "https://scholar.example.org/works/1-x/"
    assert sites.absolute_url("works/1-x/") == "https://scholar.example.org/works/1-x/"


@pytest.mark.django_db
def test_migrate_sets_the_sites_domain_and_name_from_the_settings(settings):
    Site.objects.filter(pk=settings.SITE_ID).update(domain="example.com", name="example.com")
    settings.SITE_URL = "https://scholar.example.org:8443"
    settings.SITE_NAME = "Scholar Pages"
    call_command("migrate", verbosity=0)
    site = Site.objects.get_current()
    assert (site.domain, site.name) == ("scholar.example.org:8443", "Scholar Pages")


# A DEBUG run without SITE_URL (``make run PORT=8731``) -----------------------------

SERVED = "http://127.0.0.1:8731"
DEFAULT = "http://127.0.0.1:8000"
PASSWORD = "a long and unusual passphrase 42"


@pytest.fixture
def served_on_8731(settings):
    """The embedded run as the environment leaves it (DEBUG on, no SITE_URL), on port 8731."""
    settings.DEBUG = True
    settings.SITE_URL = DEFAULT
    settings.SITE_URL_FROM_REQUEST = True
    return {"HTTP_HOST": "127.0.0.1:8731", "SERVER_PORT": "8731"}


def _canonical(response) -> str:
    [link] = re.findall(r'<link rel="canonical" href="([^"]+)">', response.content.decode())
    return link


def _addresses(text: str) -> set[str]:
    return set(re.findall(r"https?://127\.0\.0\.1:\d+[^\s\"'<>]*", text))


@pytest.mark.django_db
def test_a_debug_run_links_to_the_port_it_is_served_on(client, served_on_8731, mailoutbox):
    work = AuthorshipFactory().work
    author = work.authorships.get().author
    pages = [
        author.get_absolute_url(),
        work.get_absolute_url(),
        reverse("profiles:researcher_feed", kwargs={"pk": author.pk}),
        "/sitemap.xml",
        "/sitemap-works.xml",
        "/sitemap-researchers.xml",
        "/robots.txt",
    ]
    found = set()
    for page in pages:
        response = client.get(page, **served_on_8731)
        assert response.status_code == 200, page
        found |= _addresses(response.content.decode())
    data = {"email": "grace@example.org", "password1": PASSWORD, "password2": PASSWORD}
    client.post(reverse("account_signup"), data, **served_on_8731)
    [message] = mailoutbox
    found |= _addresses(message.body)

    assert {SERVED + author.get_absolute_url(), SERVED + work.get_absolute_url()} <= found
    assert SERVED + "/sitemap-works.xml" in found
    assert any(a.startswith(SERVED + "/accounts/confirm-email/") for a in found)
    assert all(a.startswith(SERVED + "/") for a in found), found - {SERVED}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("debug", "from_request"),
    [(True, False), (False, True)],
    ids=["SITE_URL set", "DEBUG off"],
)
def test_an_explicit_site_url_or_production_ignores_the_request(
    client, settings, debug, from_request
):
    settings.DEBUG, settings.SITE_URL_FROM_REQUEST = debug, from_request
    settings.SITE_URL = "https://scholar.example.org"
    response = client.get("/robots.txt", HTTP_HOST="127.0.0.1:8731", SERVER_PORT="8731")
    assert "Sitemap: https://scholar.example.org/sitemap.xml" in response.content.decode()
    author = AuthorFactory()
    response = client.get(author.get_absolute_url(), HTTP_HOST="localhost:8731")
    assert _canonical(response) == "https://scholar.example.org" + author.get_absolute_url()


@pytest.mark.django_db
def test_a_kept_page_is_kept_apart_for_each_address_it_was_served_at(
    client, page_cache, served_on_8731
):
    path = AuthorFactory().get_absolute_url()
    assert _canonical(client.get(path, **served_on_8731)) == SERVED + path
    other = client.get(path, HTTP_HOST="localhost:8731", SERVER_PORT="8731")
    assert _canonical(other) == "http://localhost:8731" + path
    again = client.get(path, **served_on_8731)
    assert again[pagecache.HIT_HEADER] == "hit"
    assert _canonical(again) == SERVED + path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_runserver_on_another_port_names_that_port_without_site_url(tmp_path):
    """The environment of ``make run PORT=...``: DEBUG and SITE_URL unset."""
    port = _free_port()
    environ = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SITE_URL", "REDIS_URL"}}
    environ["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        body = _get_when_up(f"http://127.0.0.1:{port}/robots.txt")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert f"Sitemap: http://127.0.0.1:{port}/sitemap.xml" in body


def _get_when_up(url: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urlopen(url, timeout=5) as response:  # noqa: S310 - a local test server
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)

"""SITE_URL: the public address that mail and feed links start with."""

import pytest
from django.contrib.sites.models import Site
from django.core.management import call_command

from config import env, sites
from tests.config.test_settings import PRODUCTION, manage


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

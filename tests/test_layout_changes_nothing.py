"""Moving code between packages changes no table and no page.

Two fingerprints are kept in ``tests/snapshots/``: the SQL of every migration
(``sqlmigrate``, per database vendor) and the demo's pages as rendered (their
volatile parts taken out). A change that is meant to alter either writes the
new fingerprint with ``UPDATE_SNAPSHOTS=1`` and says why in its commit.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import Client
from django.urls import reverse
from django.utils import timezone

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
OUR_APPS = {"publications", "profiles", "graph", "trust"}  # app labels


def _compare(name: str, found: dict[str, str]) -> None:
    path = SNAPSHOTS / f"{name}.{connection.vendor}.json"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    if not path.exists():
        pytest.fail(f"no fingerprint in {path}; write one with UPDATE_SNAPSHOTS=1")
    kept = json.loads(path.read_text())
    changed = sorted(key for key in kept.keys() | found.keys() if kept.get(key) != found.get(key))
    assert changed == [], f"changed since the fingerprint in {path.name}: {changed}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.django_db(transaction=True)
def test_every_migration_writes_the_same_sql():
    loader = MigrationLoader(connection)
    found = {}
    for label, name in sorted(loader.disk_migrations):
        if label not in OUR_APPS:
            continue
        out = io.StringIO()
        call_command("sqlmigrate", label, name, stdout=out)
        found[f"{label}.{name}"] = _digest(out.getvalue())
    _compare("schema", found)


# Parts of a page that change from one rendering to the next whatever the code.
_VOLATILE = [
    (re.compile(r'nonce="[^"]*"'), 'nonce=""'),
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), 'name="csrfmiddlewaretoken"'),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "TIMESTAMP"),
    (re.compile(r"\b\d+\s(second|minute|hour)s?\b"), "AGO"),
    (re.compile(r"\b\d\d:\d\d UTC\b"), "CLOCK"),
]


def _steady(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    today = timezone.localdate()
    for form in (
        "%d %b %Y",
        "%-d %b %Y",
        "%Y-%m-%d",
        "%B %-d, %Y",
        "%b %-d, %Y",
        "%-d %B %Y",
        "%Y/%m/%d",
    ):
        text = text.replace(today.strftime(form), "TODAY")
    return text


def _demo_addresses() -> list[str]:
    from catalogue.models import Author, Institution, Topic, Venue, Work

    addresses = ["/", "/search/?q=performance", "/search/?q=Del+Maestro", "/trust/", "/status/"]
    for pk in Author.objects.order_by("pk").values_list("pk", flat=True)[:6]:
        addresses += [
            reverse("profiles:researcher_short", args=[pk]),
            reverse("profiles:researcher_short", args=[pk]) + "?sort=title",
            reverse("profiles:researcher_feed", args=[pk]),
            reverse("profiles:researcher_export_bib", args=[pk]),
            reverse("graph:explorer", args=[pk]),
            reverse("graph:slice", args=[pk]),
            f"/api/v1/authors/{pk}/",
        ]
    for pk in Work.objects.order_by("pk").values_list("pk", flat=True)[:8]:
        addresses += [
            reverse("publications:work-short", args=[pk]),
            reverse("publications:work-export-bib", args=[pk]),
            reverse("publications:work-export-ris", args=[pk]),
            reverse("graph:work-explorer", args=[pk]),
            f"/api/v1/works/{pk}/",
        ]
    for model, kind in ((Institution, "institution"), (Venue, "venue"), (Topic, "topic")):
        for pk in model.objects.order_by("pk").values_list("pk", flat=True)[:3]:
            addresses.append(reverse(f"publications:{kind}-short", args=[pk]))
    return addresses + ["/api/v1/works/", "/api/v1/authors/", "/sitemap.xml", "/robots.txt"]


def _follow(client: Client, address: str):
    response = client.get(address, follow=True)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, body.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_the_demo_pages_render_as_before(settings):
    settings.SITE_URL = "https://scholar.example"
    cache.clear()
    call_command("demo", verbosity=0)
    cache.clear()
    client = Client()
    found = {}
    for address in _demo_addresses():
        status, body = _follow(client, address)
        found[address] = f"{status} {_digest(_steady(body))}"
        if dump := os.environ.get("DUMP_PAGES"):
            Path(dump).mkdir(parents=True, exist_ok=True)
            (Path(dump) / re.sub(r"\W", "_", address)).write_text(_steady(body))
    _compare("demo_pages", found)

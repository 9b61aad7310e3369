"""Every main page is valid HTML by the Nu HTML checker (npm vnu-jar on the machine's Java).

Skips with the reason where Java or node_modules are absent (run ``make checkers``),
except in CI (REQUIRE_BROWSER set), where a missing checker fails the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client

from tests.config.main_pages import main_pages

ROOT = Path(__file__).resolve().parents[2]
VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

pytestmark = [pytest.mark.django_db, pytest.mark.browser]  # `make test-fast` skips it


def checker() -> list[str]:
    java = shutil.which("java")
    missing = (
        "no java on PATH (Debian: openjdk-17-jre-headless)"
        if not java
        else f"no {VNU.relative_to(ROOT)}: run `make checkers`"
        if not VNU.exists()
        else ""
    )
    if missing:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"REQUIRE_BROWSER is set but the HTML checker cannot run: {missing}")
        pytest.skip(missing)
    return [java, "-jar", str(VNU)]


def validate(files: list[Path]) -> list[dict]:
    """The checker's errors for these files, as its JSON messages."""
    run = subprocess.run(
        [*checker(), "--errors-only", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(run.stderr or run.stdout or '{"messages": []}')["messages"]


def test_the_checker_finds_what_the_pages_once_had(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text(
        '<!doctype html><html lang="en"><head><title>x</title></head><body>'
        '<div hx-get="/x"></div><time datetime="2026-11-25T10:00:00.123456+00:00">x</time>'
        "</body></html>"
    )
    messages = " ".join(m["message"] for m in validate([page]))
    assert "hx-get" in messages
    assert "fraction of a second" in messages


def test_every_main_page_is_valid_html(tmp_path):
    checker()
    files = []
    for name, url, user in main_pages():
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        path = tmp_path / f"{name}.html"
        path.write_bytes(response.content)
        files.append(path)
    errors = [
        f"{Path(m.get('url', '')).name}:{m.get('lastLine')}: {m['message']}"
        for m in validate(files)
        if m.get("type") == "error" or m.get("subType") == "fatal"
    ]
    assert errors == []

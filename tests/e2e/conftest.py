"""Playwright on the system Chromium against pytest-django's live server.

Browser tests skip with a reason where no Chromium is installed, except when
REQUIRE_BROWSER is set (CI), where a missing browser fails the run.
"""

import os
import shutil
from pathlib import Path

import pytest
from django.test import Client

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Playwright's sync API runs an event loop in this thread; the ORM calls the
# tests make between page actions (and the database flush after them) are still
# plain synchronous calls. Subprocess tests drop this variable from their env.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

# Words under ``selector`` whose letters the layout spread over two lines.
WORDS_CUT = """(selector) => {
  const cut = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.getBoundingClientRect().width < 2) continue;  // visually hidden
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (range.getClientRects().length > 1) cut.push(word[0]);
      }
    }
  }
  return cut;
}"""
# The labels the site writes itself (imported words of any length may wrap anywhere).
OWN_LABELS = "th, .stat dt, .stat dd, button, .button, .tag, .badge"


def pytest_collection_modifyitems(config, items):
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("REQUIRE_BROWSER"):
        raise pytest.UsageError(f"REQUIRE_BROWSER is set but no Chromium was found at {CHROMIUM}")
    skip = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    for item in items:
        if "e2e" in item.nodeid:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_FLAGS}


@pytest.fixture
def screenshot(page):
    """Save a full-page screenshot under artifacts/screenshots/ and return its path."""

    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def signed_in(browser, live_server, user, viewport):
    """A browser context at ``viewport``, signed in as ``user`` (None: a visitor)."""
    context = browser.new_context(viewport=viewport)
    if user is not None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies["sessionid"].value
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
    return context

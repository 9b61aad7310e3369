"""Hostile imported records, opened in Chromium: no script runs on load or on a click, no 500.

The records come from ``tests.hostile`` (script tags, handlers, script URLs in every
URL field, entity tricks, controls, 100k strings, RTL and zero-width characters),
imported through the same run machinery as a real offline import, plus rows written
past the import's checks whose names would close a <script> (JSON-LD). Every page
that shows them (``tests.hostile_pages``: work, researcher, institution, venue,
topic, both explorers, home, search) is opened; every link inside the page's main
content is clicked; feeds and exports, whole lists too, are fetched as a browser
would fetch them.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from catalogue.models import ImportRun, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from tests.hostile import hostile_arxiv_feed, write_hostile_snapshot
from tests.hostile_pages import export_urls, feed_urls, raw_rows, record_pages

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAFE_SCHEMES = ("http:", "https:", "mailto:")
HOLD_WEB_LINKS = """() => document.addEventListener('click', event => {
    const link = event.target.closest('a');
    if (!link) return;
    const href = new URL(link.getAttribute('href') || '', document.baseURI).href;
    if (/^https?:/.test(href)) event.preventDefault();
}, true)"""
# A real click event on every link, HTML or SVG, as a press of the mouse would send.
CLICK_ALL = """links => links.forEach(link => link.dispatchEvent(
    new MouseEvent('click', {bubbles: true, cancelable: true, view: window})))"""
# Every hostile payload in tests.hostile calls alert() or msgbox(): a dialog is the sign
# that something ran, so the test watches for one on every load and click. The site's
# Content-Security-Policy refuses inline script, so markup that got into a page would be
# stopped there: a refusal is the other sign, and the walk watches for those too.
LISTEN_REFUSALS = """
window.__refused = [];
document.addEventListener("securitypolicyviolation", event => {
  window.__refused.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture
def hostile(tmp_path):
    write_hostile_snapshot(tmp_path / "works.jsonl")
    feed = tmp_path / "feed.xml"
    feed.write_text(hostile_arxiv_feed(), encoding="utf-8")
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(tmp_path / "works.jsonl"), str(feed)]},
        queue=False,
    )
    run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    raw_rows()
    works = list(Work.objects.filter(title__startswith="Hostile").order_by("pk"))
    assert works
    return works


def _watch(page, dialogs: list[str], errors: list[str]):
    page.add_init_script(LISTEN_REFUSALS)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))


def _check_links(page, url: str) -> list[str]:
    """Every link, image and form target of the page: only web addresses or same-site paths."""
    targets = page.eval_on_selector_all(
        "a[href], img[src], iframe[src], form[action], area[href], [formaction]",
        """els => els.map(e => {
            const raw = ['href', 'src', 'action', 'formaction']
                .map(name => e.getAttribute(name)).find(v => v !== null) || '';
            return new URL(raw, document.baseURI).href;
        })""",
    )
    for target in targets:
        assert target.startswith(SAFE_SCHEMES), f"{url}: unsafe target {target!r}"
    return targets


@pytest.mark.slow
def test_no_script_runs_on_any_page_or_click(hostile, live_server, page, screenshot):
    dialogs: list[str] = []
    errors: list[str] = []
    _watch(page, dialogs, errors)
    origin = live_server.url
    # Nothing leaves this machine: links to other sites are answered here with an empty page.
    page.route(
        lambda u: not u.startswith(origin),
        lambda route: route.fulfill(status=200, body="elsewhere", content_type="text/plain"),
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    pages = record_pages(hostile)
    for path in pages:
        response = page.goto(origin + path)
        assert response.status < 500, f"{path}: {response.status}"
        assert response.status == 200, f"{path}: {response.status}"
        _check_links(page, path)
        assert page.evaluate("window.__refused") == [], f"{path}: the policy refused script"
    assert not dialogs, dialogs

    # Click every link in the main content of every page. A web address cannot run script
    # by being followed, so those clicks are held back (the page stays); any other kind of
    # link would be followed as the browser does, and a dialog would show it ran.
    for path in pages:
        page.goto(origin + path)
        page.evaluate(HOLD_WEB_LINKS)
        page.eval_on_selector_all("main a[href]", CLICK_ALL)
        # What the clicks started (a graph slice, a link followed) ends before the next page.
        page.wait_for_load_state("networkidle")
        assert page.url == origin + path or page.url.startswith(origin), path
        assert not dialogs, f"{path}: a click opened {dialogs}"
    assert not dialogs, dialogs
    assert not [e for e in errors if "alert" in e or "xss" in e.lower()], errors

    page.goto(origin + hostile[0].get_absolute_url())
    screenshot("hostile-work-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(origin + hostile[0].get_absolute_url())
    screenshot("hostile-work-phone")
    page.goto(origin + reverse("publications:home"))
    screenshot("hostile-home-phone")
    # A 100,000-character title is shown cut, with its ellipsis, on the home page.
    longest = max(len(t) for t in page.locator("main a").all_inner_texts())
    assert longest < 1000


def test_feeds_and_exports_carry_nothing_that_runs(hostile, live_server, page):
    dialogs: list[str] = []
    errors: list[str] = []
    _watch(page, dialogs, errors)
    origin = live_server.url
    for path in feed_urls(hostile):
        url = origin + path
        response = page.request.get(url)
        assert response.status == 200, url
        body = response.text()
        assert "<script" not in body.lower().replace("&lt;script", "")
        assert "javascript:" not in body.lower()
        # Opened as a document too: a browser renders the feed without running anything.
        page.goto(url)
    for path in export_urls(hostile):
        response = page.request.get(origin + path)
        assert response.status == 200, path
        for address in _export_addresses(response.text()):
            assert address.startswith(("http://", "https://")), (path, address)
    assert not dialogs, dialogs


def _export_addresses(text: str) -> list[str]:
    """The addresses a reference manager would open: RIS link tags and BibTeX url fields."""
    found = []
    for line in text.splitlines():
        tag, _, value = line.partition("  - ")
        if tag in ("UR", "L1", "L2", "L3", "L4") and value:
            found.append(value.strip())
        key, _, rest = line.strip().partition("=")
        if key.strip().lower() in ("url", "pdf", "howpublished") and rest:
            found.append(rest.strip().strip(',{}" ').removeprefix("\\url{"))
    if text.lstrip().startswith("["):  # CSL-JSON: every "URL" of every item
        found += [item["URL"] for item in json.loads(text) if item.get("URL")]
    return found

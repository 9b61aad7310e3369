"""What a visitor meets first, in Chromium: readable header controls, no axe-core finding.

axe-core (npm, injected into each page) runs on every main page at desktop and
390-pixel phone width. It files a text it cannot measure, or one at 1:1, under
"incomplete" rather than "violations", so both lists are read: no violation, and
no colour-contrast item left to review (except text drawn over SVG shapes, which
axe cannot measure, unless it found 1:1 there). No word of a label the site writes
itself (table headings, figures, buttons, tags) is cut mid-word either. Screenshots
go to artifacts/screenshots/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.config.main_pages import main_pages
from tests.e2e.conftest import OWN_LABELS, SCREENSHOTS, WORDS_CUT, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def axe_source() -> str:
    if not AXE.exists():
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"REQUIRE_BROWSER is set but {AXE} is missing: run `make checkers`")
        pytest.skip(f"no {AXE}: run `make checkers`")
    return AXE.read_text()


def axe_findings(page, source: str) -> dict:
    # Injected through the DevTools protocol, so the page's Content-Security-Policy stays as served.
    page.evaluate(source)
    return page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
            const slim = (items) => items.map((v) => ({
                id: v.id,
                help: v.help,
                nodes: v.nodes.map((n) => ({
                    target: n.target.join(" "),
                    why: n.any.map((c) => c.message).join("; "),
                    // axe cannot measure text drawn over SVG shapes (charts, the graph).
                    inSvg: Boolean(document.querySelector(n.target.join(" "))?.closest("svg")),
                })),
            }));
            return {violations: slim(r.violations), incomplete: slim(r.incomplete)};
        }"""
    )


def test_main_pages_have_no_axe_finding_at_desktop_and_phone_width(
    live_server, browser, axe_source
):
    pages = main_pages()
    problems = {}
    for viewport, label in ((DESKTOP, "desktop"), (PHONE, "phone")):
        contexts = {}
        for name, url, user in pages:
            key = getattr(user, "pk", None)
            if key not in contexts:
                contexts[key] = signed_in(browser, live_server, user, viewport)
            page = contexts[key].new_page()
            response = page.goto(live_server.url + url)
            assert response.status == 200, (name, url)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(SCREENSHOTS / f"experience-{name}-{label}.png"), full_page=True
            )
            found = axe_findings(page, axe_source)
            unreadable = [
                node
                for item in found["incomplete"]
                if item["id"] == "color-contrast"
                for node in item["nodes"]
                if not node["inSvg"] or "1:1" in node["why"]
            ]
            if found["violations"] or unreadable:
                problems[f"{name} ({label})"] = found["violations"] + unreadable
            if cut := page.evaluate(WORDS_CUT, OWN_LABELS):
                problems[f"{name} ({label}): words of our own labels cut mid-word"] = cut
            page.close()
        for context in contexts.values():
            context.close()
    assert problems == {}, json.dumps(problems, indent=1)


def test_every_header_control_is_readable(live_server, browser):
    pages = main_pages()
    member = next(user for name, _, user in pages if name == "following")
    member.is_staff = True  # staff see every control the header has
    member.save(update_fields=["is_staff"])
    for user in (None, member):
        context = signed_in(browser, live_server, user, DESKTOP)
        page = context.new_page()
        page.goto(live_server.url + "/")
        controls = page.locator(".site-header a, .site-header button")
        assert controls.count() >= 3
        for i in range(controls.count()):
            handle = controls.nth(i)
            label = handle.inner_text().strip() or handle.get_attribute("aria-label") or ""
            if not label:  # the brand mark alone; its name is the text beside it
                continue
            ratio = handle.evaluate(CONTRAST_JS)
            assert ratio >= 4.5, (user, label, round(ratio, 2))
        if user is None:
            sign_in = page.get_by_role("link", name="Sign in")
            expect(sign_in).to_be_visible()
        context.close()


# WCAG contrast ratio of an element's text on its nearest painted background.
CONTRAST_JS = """(el) => {
    const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
        const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = el, paint = getComputedStyle(bg).backgroundColor;
    while (bg && (paint === "transparent" || rgb(paint)[3] === 0)) {
        bg = bg.parentElement;
        paint = bg ? getComputedStyle(bg).backgroundColor : "rgb(255,255,255)";
    }
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(rgb(paint));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""

"""The explorer's picture zooms, pans and steps to a neighbour in place, desktop and phone."""

import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from playwright.sync_api import expect

from catalogue.models import Author
from tests.e2e.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
HOME = [0.0, 0.0, 900.0, 900.0]


@pytest.fixture
def demo_researcher(live_server):
    cache.clear()
    call_command("demo", verbosity=0)
    return Author.objects.get(openalex_id="A9000000002")


def view_box(page) -> list[float]:
    value = page.locator("#graph-viewport svg.graph-svg").get_attribute("viewBox")
    return [float(v) for v in value.split()]


def figure_shot(page, name: str) -> None:
    """The picture alone, as a phone or desktop shows it (the full page is far taller)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#graph-explorer .graph-figure").screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def axe_violations(page) -> list[dict]:
    """axe-core's WCAG A/AA violations on the page (its script evaluated, not injected)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed under node_modules/")
    page.evaluate(AXE.read_text())
    return page.evaluate(
        """async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa',
        'best-practice']})).violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target)}))"""
    )


def centre_on_neighbour(page, kind: str) -> str:
    """Click the first person or paper of the picture; wait for the explorer to swap."""
    node = page.locator(f"#graph-viewport a.node-{kind}:not(.node-centre)").first
    name = node.locator("title").text_content().split(": ", 1)[0]
    href = node.get_attribute("href")
    node.locator("circle, rect").first.click()
    page.wait_for_url("**" + href)
    return name


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_explorer_zooms_pans_and_recentres_in_place(
    live_server, page, screenshot, demo_researcher, size
):
    page.set_viewport_size(DESKTOP if size == "desktop" else PHONE)
    page.goto(live_server.url + f"/researchers/{demo_researcher.pk}/graph/")
    svg = page.locator("#graph-viewport svg.graph-svg")
    expect(svg).to_be_visible()
    assert view_box(page) == HOME
    toolbar = page.get_by_role("toolbar", name="Zoom and move the picture")
    expect(toolbar).to_be_visible()
    expect(toolbar.get_by_role("button", name="Zoom out")).to_be_disabled()
    box = svg.bounding_box()
    assert box["width"] <= page.viewport_size["width"]
    figure_shot(page, f"graph-figure-{size}")

    if size == "phone":
        # Drawn narrow: fewer, larger labels, as large as body text at phone size.
        wide, narrow = svg.locator("text.label-wide"), svg.locator("text.label-narrow")
        expect(narrow.first).to_be_visible()
        expect(wide.first).to_be_hidden()
        assert 1 <= narrow.count() < wide.count()
        assert narrow.first.bounding_box()["height"] >= 16
    else:
        expect(svg.locator("text.label-wide").first).to_be_visible()
        expect(svg.locator("text.label-narrow").first).to_be_hidden()

    # Buttons zoom about the middle and report the level.
    toolbar.get_by_role("button", name="Zoom in").click()
    x, y, w, h = view_box(page)
    assert w == pytest.approx(600) and x == pytest.approx(150) and y == pytest.approx(150)
    expect(toolbar).to_contain_text("150%")
    toolbar.get_by_role("button", name="Zoom in").click()
    assert view_box(page)[2] == pytest.approx(400)
    if size == "phone":  # zoomed in close, the full label set returns
        expect(svg.locator("text.label-wide").first).to_be_visible()
    screenshot(f"graph-explorer-zoomed-{size}")
    figure_shot(page, f"graph-figure-zoomed-{size}")

    # A drag moves the picture and follows no link, even when it starts on a node.
    before = view_box(page)
    svg.scroll_into_view_if_needed()
    start = svg.locator("a.node-centre").bounding_box()
    sx, sy = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(sx - 60, sy - 40, steps=6)
    page.mouse.up()
    after = view_box(page)
    assert after[0] > before[0] and after[1] > before[1] and after[2] == before[2]
    assert page.url.endswith(f"/researchers/{demo_researcher.pk}/graph/")
    screenshot(f"graph-explorer-panned-{size}")
    figure_shot(page, f"graph-figure-panned-{size}")

    # The keyboard: keys on the focused picture, then the reset button.
    page.locator("#graph-viewport").focus()
    page.keyboard.press("ArrowRight")
    assert view_box(page)[0] > after[0]
    page.keyboard.press("-")
    assert view_box(page)[2] == pytest.approx(600)
    toolbar.get_by_role("button", name="Reset view").focus()
    page.keyboard.press("Enter")
    assert view_box(page) == HOME
    expect(toolbar.get_by_role("button", name="Reset view")).to_be_disabled()

    if size == "desktop":  # the wheel zooms about the pointer
        page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.25)
        page.mouse.wheel(0, -400)
        page.wait_for_function(
            "document.querySelector('#graph-viewport svg').getAttribute('viewBox') !== '0 0 900 900'"
        )
        x, y, w, _ = view_box(page)
        assert w < 900 and 0 < x < 900 - w and y > 0
        toolbar.get_by_role("button", name="Reset view").click()

    violations = axe_violations(page)
    assert violations == [], violations

    # A click on a neighbour swaps the explorer in place and updates the address.
    page.evaluate("window.stillThisPage = true")
    name = centre_on_neighbour(page, "person")
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    assert page.evaluate("window.stillThisPage") is True
    assert page.title().startswith(f"Research graph of {name}")
    expect(page.locator("#graph-viewport a.node-centre")).to_be_focused()
    assert page.locator("#graph-explorer").count() == 1
    # The new picture zooms too.
    assert view_box(page) == HOME
    toolbar.get_by_role("button", name="Zoom in").click()
    assert view_box(page)[2] == pytest.approx(600)
    screenshot(f"graph-explorer-recentred-{size}")
    figure_shot(page, f"graph-figure-recentred-{size}")

    # A paper becomes the centre in turn, with its own neighbourhood.
    paper_title = centre_on_neighbour(page, "paper")
    assert re.search(r"/works/\d+/graph/$", page.url)
    expect(page.locator("#graph-viewport a.node-centre.node-paper")).to_have_count(1)
    expect(page.get_by_role("heading", level=1)).to_contain_text(paper_title[:20])
    assert page.locator("#graph-viewport a.node-person").count() >= 1
    assert page.evaluate("window.stillThisPage") is True
    screenshot(f"graph-explorer-paper-{size}")
    figure_shot(page, f"graph-figure-paper-{size}")
    violations = axe_violations(page)
    assert violations == [], violations

    # Back returns to the person, and the picture still zooms.
    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(toolbar).to_be_visible()
    toolbar.get_by_role("button", name="Zoom in").click()
    assert view_box(page)[2] == pytest.approx(600)


def test_a_pinch_zooms_the_picture_on_a_touch_screen(live_server, browser, demo_researcher):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + f"/researchers/{demo_researcher.pk}/graph/")
    svg = page.locator("#graph-viewport svg.graph-svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = context.new_cdp_session(page)

    def touch(kind: str, spread: float) -> None:
        points = (
            []
            if kind == "touchEnd"
            else [
                {"x": cx - spread, "y": cy, "id": 1},
                {"x": cx + spread, "y": cy, "id": 2},
            ]
        )
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 30)
    for spread in range(40, 121, 10):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    width = view_box(page)[2]
    assert width < 600  # spread fourfold: zoomed in well past 150%
    context.close()


def test_without_javascript_the_picture_links_to_the_neighbours_explorer(
    live_server, browser, demo_researcher
):
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + f"/researchers/{demo_researcher.pk}/graph/")
    expect(page.get_by_role("toolbar")).to_have_count(0)  # hidden: it needs the script
    node = page.locator("#graph-viewport a.node-person:not(.node-centre)").first
    name = node.locator("title").text_content().split(": ", 1)[0]
    page.locator(".graph-centre-link").first.click()
    page.wait_for_url(re.compile(r"/(researchers|works)/\d+/graph/$"))
    node_page = page.url
    page.go_back()
    node.locator("circle").click()
    page.wait_for_url(re.compile(r"/researchers/\d+/graph/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    assert page.url != node_page or name in page.title()
    context.close()

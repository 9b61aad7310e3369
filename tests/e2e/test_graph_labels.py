"""In a browser, the graph's names overlap nothing and read at least as large as body text,
on a desktop and on a phone, for the demo researcher and for a crowded record."""

from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from playwright.sync_api import expect

from catalogue.models import Author
from graph import svg
from tests.e2e.conftest import SCREENSHOTS
from tests.graph.conftest import crowded_researcher

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}

# What shows of the first picture on the page: its width, the smallest name's size on
# screen, and the names that overlap another name or a shape (their screen boxes).
MEASURE = """() => {
  const svg = document.querySelector('svg.graph-svg');
  const scale = svg.getScreenCTM().a;
  const frame = svg.getBoundingClientRect();
  const names = [...svg.querySelectorAll('text.label')].filter(t => getComputedStyle(t).display !== 'none');
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const marks = [...svg.querySelectorAll('a.node')].map(a =>
    [...a.querySelectorAll(':scope > circle, :scope > rect, :scope > polygon')].map(box)).flat();
  const hit = (a, b) => a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5;
  const boxes = names.map(box);
  const overlaps = [];
  boxes.forEach((b, i) => {
    boxes.slice(i + 1).forEach((o, j) => { if (hit(b, o)) overlaps.push([names[i].textContent, names[i + 1 + j].textContent]); });
    marks.forEach(m => { if (hit(b, m)) overlaps.push([names[i].textContent, 'a shape']); });
    if (b[0] < frame.left - 0.5 || b[2] > frame.right + 0.5) overlaps.push([names[i].textContent, 'the edge']);
  });
  const sizes = names.map(t => parseFloat(t.getAttribute('font-size')) * scale);
  return {width: frame.width, names: names.length, smallest: Math.min(...sizes), overlaps};
}"""


@pytest.fixture
def records(live_server):
    cache.clear()
    call_command("demo", verbosity=0)
    hub, _ = crowded_researcher(45)
    return {"demo": Author.objects.get(openalex_id="A9000000002"), "crowded": hub}


def readable(page) -> dict:
    measured = page.evaluate(MEASURE)
    assert measured["names"] >= 1
    assert measured["smallest"] >= svg.BODY_TEXT_PX - 0.01, measured
    assert measured["overlaps"] == [], measured["overlaps"]
    return measured


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("who", ["demo", "crowded"])
def test_explorer_names_overlap_nothing_and_read_as_body_text(
    live_server, page, records, who, size
):
    page.set_viewport_size(SIZES[size])
    page.goto(live_server.url + f"/researchers/{records[who].pk}/graph/")
    expect(page.locator("#graph-viewport svg.graph-svg")).to_be_visible()
    measured = readable(page)
    if size == "phone":
        assert svg.NARROWEST_PX <= measured["width"] < svg.WIDE_FROM_PX
    else:
        assert measured["width"] >= svg.WIDE_FROM_PX
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    figure = page.locator("#graph-explorer .graph-figure")
    figure.screenshot(path=str(SCREENSHOTS / f"graph-names-{who}-{size}.png"))
    # Zoomed in, a phone shows the wide set once it reads as large as body text.
    toolbar = page.get_by_role("toolbar", name="Zoom and move the picture")
    toolbar.get_by_role("button", name="Zoom in").click()
    toolbar.get_by_role("button", name="Zoom in").click()
    if size == "phone":
        expect(page.locator("#graph-viewport text.label-wide").first).to_be_visible()
    scale = page.evaluate("document.querySelector('svg.graph-svg').getScreenCTM().a")
    fonts = page.locator("#graph-viewport text.label").evaluate_all(
        "ts => ts.filter(t => getComputedStyle(t).display !== 'none')"
        ".map(t => parseFloat(t.getAttribute('font-size')))"
    )
    assert min(fonts) * scale >= svg.BODY_TEXT_PX - 0.01


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_slice_names_overlap_nothing_and_read_as_body_text(live_server, page, records, size):
    page.set_viewport_size(SIZES[size])
    page.goto(live_server.url + records["crowded"].get_absolute_url())
    section = page.locator(".graph-section")
    section.scroll_into_view_if_needed()  # the slice may load only once in view
    slice_ = section.locator(".graph-slice")
    expect(slice_.locator("svg.graph-svg")).to_be_visible()
    readable(page)
    slice_.locator(".graph-figure").screenshot(
        path=str(SCREENSHOTS / f"graph-names-slice-{size}.png")
    )


def test_a_crowded_explorer_on_a_phone_passes_axe(live_server, page, records):
    if not AXE.exists():
        pytest.skip("axe-core is not installed under node_modules/")
    page.set_viewport_size(SIZES["phone"])
    page.goto(
        live_server.url + f"/researchers/{records['crowded'].pk}-crowded-hub-researcher/graph/"
    )
    expect(page.get_by_role("heading", level=1)).to_have_text("Crowded Hub Researcher")
    page.evaluate(AXE.read_text())
    violations = page.evaluate(
        """async () => (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa',
        'best-practice']})).violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target)}))"""
    )
    assert violations == [], violations
    # The stack of people left out leads to the list that names them.
    page.locator("a.node-group.node-person").first.click()
    assert page.url.endswith("#graph-list-person")
    expect(page.locator("#graph-list-person")).to_be_in_viewport()

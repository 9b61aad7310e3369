"""A visitor sees the research graph on the demo researcher page and explores it."""

import re

import pytest
from django.core.cache import cache
from django.core.management import call_command
from playwright.sync_api import expect

from catalogue.models import Author

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_researcher(live_server):
    cache.clear()
    call_command("demo", verbosity=0)
    return Author.objects.get(openalex_id="A9000000002")  # Amar Phanishayee, seed 002


def test_the_slice_loads_and_the_explorer_filters_and_links(
    live_server, page, screenshot, demo_researcher
):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + demo_researcher.get_absolute_url())
    section = page.locator(".graph-section")
    section.scroll_into_view_if_needed()
    slice_ = section.locator(".graph-slice")
    expect(slice_.locator("svg.graph-svg")).to_be_visible()
    expect(section.get_by_text("Building this graph slice")).to_have_count(0)
    centre = slice_.locator("a.node-centre")
    expect(centre.locator("title")).to_contain_text("Amar Phanishayee")
    people = slice_.locator("a.node-person:not(.node-centre)")
    assert people.count() >= 3
    assert slice_.locator("a.node-paper").count() >= 1
    screenshot("graph-slice-desktop")

    # A tab keeps only one kind in the list beside the picture.
    slice_.get_by_label("Papers").check()
    expect(slice_.locator('.graph-list[data-kind="person"]')).to_be_hidden()
    expect(slice_.locator('.graph-list[data-kind="paper"]')).to_be_visible()
    screenshot("graph-slice-papers")

    # The explorer: a filter narrows it, and a node leads to its page.
    section.get_by_role("link", name="Open the graph explorer").first.click()
    page.wait_for_url("**/graph/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Amar Phanishayee")
    before = page.locator("svg.graph-svg a.node").count()
    screenshot("graph-explorer-desktop")
    # By value: the label "Papers" is also part of "Citations between papers".
    for kind in ("paper", "topic", "institution"):
        page.locator(f'input[name="kinds"][value="{kind}"]').uncheck()
    page.get_by_label("People").check()
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**kinds=person**")
    after = page.locator("svg.graph-svg a.node")
    assert 1 < after.count() < before
    assert page.locator("svg.graph-svg a.node-paper").count() == 0
    screenshot("graph-explorer-people")

    # A person in the picture centres the explorer on them, keeping the filter.
    target = page.locator("svg.graph-svg a.node-person:not(.node-centre)").first
    name = target.locator("title").text_content().split(":")[0]
    target.focus()
    target.press("Enter")
    page.wait_for_url(re.compile(r"/researchers/\d+/graph/\?kinds=person"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    assert page.locator("svg.graph-svg a.node-paper").count() == 0
    # The list still leads to the researcher's own page.
    page.locator(".graph-list-centre a").first.click()
    page.wait_for_url("**/researchers/*-*/")
    expect(page.get_by_role("heading", level=1)).to_have_text(name)


def test_the_graph_on_a_phone(live_server, page, screenshot, demo_researcher):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + f"/researchers/{demo_researcher.pk}/graph/")
    svg = page.locator("svg.graph-svg")
    expect(svg).to_be_visible()
    box = svg.bounding_box()
    assert box["width"] <= 390
    screenshot("graph-explorer-phone")
    page.goto(live_server.url + demo_researcher.get_absolute_url())
    page.locator(".graph-section").scroll_into_view_if_needed()
    expect(page.locator(".graph-slice svg.graph-svg")).to_be_visible()
    page.locator(".graph-section").screenshot(path="artifacts/screenshots/graph-slice-phone.png")

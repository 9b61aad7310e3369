"""In Chromium: the researcher page opens without running htmx, which loads when the research
graph comes near the screen or when the visitor reaches for a form htmx sends."""

import pytest
from playwright.sync_api import expect

from profiles.models import Follow
from tests.e2e.conftest import signed_in
from tests.factories import AuthorshipFactory
from tests.people import person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def open_page(browser, live_server, author, viewport, user=None):
    page = signed_in(browser, live_server, user, viewport).new_page()
    page.goto(live_server.url + author.get_absolute_url())
    page.wait_for_load_state("networkidle")
    return page


def test_htmx_loads_once_the_graph_comes_near(live_server, browser):
    author = AuthorshipFactory().author
    page = open_page(browser, live_server, author, PHONE)
    section = page.locator(".graph-section")
    assert section.bounding_box()["y"] > PHONE["height"] + 400  # below the fold, well away
    assert page.evaluate("typeof htmx") == "undefined"
    expect(section.get_by_text("Building this graph slice")).to_have_count(1)
    section.scroll_into_view_if_needed()
    expect(section.get_by_text("Building this graph slice")).to_have_count(0)
    assert page.evaluate("typeof htmx") == "object"


def test_a_follow_sent_before_htmx_is_there_still_goes_through_htmx(live_server, browser):
    author = AuthorshipFactory().author
    reader = person("reader")
    page = open_page(browser, live_server, author, PHONE, reader)  # the graph is far below
    assert page.evaluate("typeof htmx") == "undefined"
    page.evaluate("window.sameDocument = true")
    box = page.locator(f"#follow-box-{author.pk}")
    box.get_by_role("button", name="Follow researcher").click()
    expect(box.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(box).to_contain_text("1 follower")
    assert page.evaluate("window.sameDocument") is True  # answered in place, not reloaded
    assert Follow.objects.filter(user=reader, author=author).exists()

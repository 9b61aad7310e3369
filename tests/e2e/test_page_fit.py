"""In Chromium, on the demo data: forms fit a phone's width and lay out their controls
as read (a select never widens the page; a checkbox sits on its label's line)."""

import pytest
from django.core.management import call_command

from catalogue.models import Author
from profiles.claims.services import claim_approve
from profiles.models import Claim
from tests.e2e.conftest import signed_in
from tests.factories import AuthorFactory, UserFactory
from tests.people import person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def tab(browser, live_server, viewport, user=None):
    return signed_in(browser, live_server, user, viewport).new_page()


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_the_report_form_fits_a_phone_whatever_the_titles(live_server, browser):
    call_command("demo", verbosity=0)
    author = Author.objects.get(openalex_id="A9000000001")
    page = tab(browser, live_server, PHONE, person("reader"))
    page.goto(f"{live_server.url}/researchers/{author.pk}/report/")
    select = page.locator("select").first
    assert select.count() == 1
    assert page_width(page) <= PHONE["width"]
    assert select.bounding_box()["width"] <= PHONE["width"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_remember_me_sits_beside_its_checkbox(live_server, browser, viewport):
    page = tab(browser, live_server, viewport)
    page.goto(f"{live_server.url}/accounts/login/")
    box = page.locator("#id_remember").bounding_box()
    label = page.locator("label[for=id_remember]").bounding_box()
    assert abs((box["y"] + box["height"] / 2) - (label["y"] + label["height"] / 2)) < 6
    assert box["x"] + box["width"] <= label["x"]  # the box first, then its words


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_held_claims_actions_keep_apart(live_server, browser, viewport):
    holder = person("holder")
    claim = Claim.objects.create(
        user=holder, author=AuthorFactory(), method="evidence", evidence="My lab page"
    )
    claim_approve(claim=claim, actor=UserFactory(is_staff=True))
    page = tab(browser, live_server, viewport, holder)
    page.goto(f"{live_server.url}/claims/{claim.pk}/")
    button = page.get_by_role("link", name="Edit your profile").bounding_box()
    link = page.get_by_role("link", name="All your claims").bounding_box()
    apart = link["x"] - (button["x"] + button["width"])
    below = link["y"] - (button["y"] + button["height"])
    assert apart >= 8 or below >= 8  # beside the button with a gap, or on a line of its own
    assert page_width(page) <= viewport["width"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_search_page_shows_one_search_box(live_server, browser, viewport):
    call_command("demo", verbosity=0)
    page = tab(browser, live_server, viewport)
    page.goto(f"{live_server.url}/search/?q=learning")
    boxes = page.get_by_role("searchbox")
    assert [boxes.nth(i).is_visible() for i in range(boxes.count())] == [True]
    assert boxes.first.get_attribute("id") == "search-q"  # the page's box, beside the filters
    assert page_width(page) <= viewport["width"]

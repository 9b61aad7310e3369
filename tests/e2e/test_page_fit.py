"""In Chromium, on the demo data: forms fit a phone's width and lay out their controls
as read (a select never widens the page; a checkbox sits on its label's line)."""

import pytest
from django.core.management import call_command

from publications.models import Author
from tests.e2e.conftest import signed_in
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

"""In Chromium, on the demo: every row of docs/FEATURES.md shows something on its page.

One walk over the whole table after one load of the demo; the failure lists each
row whose page showed nothing (or the wrong thing), so a gap in the demo data or
a feature that stopped showing it is named, not just counted. The walk ends with
screenshots of the first researcher page at a desktop's and a phone's width.
"""

import pytest
from django.core.management import call_command

from catalogue.models import Author
from devtools.demo_people import demo_accounts
from tests.e2e.conftest import SCREENSHOTS, signed_in
from tests.e2e.demo_features import CHECKS, GENNADY, STAFF, Check, feature_rows
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def demo(live_server):
    call_command("demo", verbosity=0)


@pytest.fixture
def pages(browser, live_server, demo, django_user_model):
    """One signed-in page per demo account (and staff, and a visitor), opened when asked for."""
    emails = demo_accounts()
    opened = {}

    def page_for(user_key):
        if user_key not in opened:
            if user_key == STAFF:
                user = UserFactory(username="features-staff", is_staff=True, is_superuser=True)
            elif user_key is None:
                user = None
            else:
                user = django_user_model.objects.get(email=emails[user_key])
            opened[user_key] = signed_in(browser, live_server, user, DESKTOP).new_page()
        return opened[user_key]

    yield page_for
    for page in opened.values():
        page.context.close()


def shows(page, selector: str, text: str | None) -> bool:
    found = page.locator(selector)
    if text is None:
        return found.count() > 0
    for element in found.all()[:50]:
        if element.is_visible():
            element.scroll_into_view_if_needed()  # a list far down renders as it nears the screen
            content = " ".join(element.inner_text().split())
            if content and text in content:
                return True
    return False


def missing(page, live_server, check: Check) -> list[str]:
    path = check.path()
    if all(selector == "GET" for selector, _ in check.expect):  # a download, the API
        response = page.request.get(live_server.url + path)
        body = response.text() if response.ok else ""
        return [f"{path}: no {text!r} in the body" for _, text in check.expect if text not in body]
    response = page.goto(live_server.url + path)
    if response is None or response.status != 200:
        return [f"{path} answered {response and response.status}"]
    gaps = [
        f"{path}: no {sel!r} with {text!r}"
        for sel, text in check.expect
        if not shows(page, sel, text)
    ]
    gaps += [
        f"{path}: {sel!r} holds {text!r}" for sel, text in check.absent if shows(page, sel, text)
    ]
    return gaps


def screenshots_of_the_first_page(page, live_server) -> list[str]:
    """The first researcher page at a desktop's and a phone's width; what overflows."""
    url = live_server.url + Author.objects.get(openalex_id=GENNADY).get_absolute_url()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    wide = []
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.goto(url)
        # The graph slice loads as it nears the screen; then the whole page is taken.
        page.locator(".graph-section").scroll_into_view_if_needed()
        page.locator(".graph-slice svg").first.wait_for(timeout=60_000)
        if page.evaluate("document.documentElement.scrollWidth") > size["width"]:
            wide.append(f"the researcher page scrolls sideways at {size['width']} px")
        page.screenshot(path=str(SCREENSHOTS / f"demo-researcher-{name}.png"), full_page=True)
    return wide


def test_every_feature_of_the_table_shows_something_on_the_demo(pages, live_server):
    failures = []
    for row in feature_rows():
        for check in CHECKS[row]:
            failures += [f"{row}: {gap}" for gap in missing(pages(check.user), live_server, check)]
    failures += screenshots_of_the_first_page(pages(None), live_server)
    assert not failures, "Rows with nothing to show:\n" + "\n".join(failures)

"""A reader opens a demo researcher page in Chromium and checks the trust snapshot."""

import re

import pytest
from django.core.management import call_command

from catalogue.models import Author
from tests.e2e.conftest import SCREENSHOTS
from trust.models import TrustScore

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo():
    call_command("demo", verbosity=0)


def _richest_scored_author() -> Author:
    """The demo author with the most points, so the panel has evidence to show."""
    score = TrustScore.objects.select_related("author").order_by("-score", "author_id").first()
    assert score is not None, "the demo import should have scored its authors"
    return score.author


def test_researcher_page_shows_the_trust_snapshot_and_why(demo, live_server, page, screenshot):
    author = _richest_scored_author()
    stored = TrustScore.objects.get(author=author)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + author.get_absolute_url())

    snapshot = page.get_by_role("region", name="Trust snapshot")
    quick = snapshot.get_by_role("list", name="Trust at a glance")
    assert quick.is_visible()
    headline = quick.inner_text()
    assert re.search(rf"Trust\s+{stored.score}\s+-\s+{stored.get_tier_display()}", headline)
    assert f"Verification L{stored.level}" in headline
    assert stored.claim_status in headline
    assert snapshot.get_by_role("img", name="Trust score history").is_visible()

    why = snapshot.locator("details.trust-why")
    assert not why.locator(".trust-items").first.is_visible()  # closed until asked
    snapshot.get_by_text("Why this score").click()
    identity = snapshot.get_by_role("region", name=re.compile(r"^Identity"))
    assert identity.is_visible()
    assert "OpenAlex author id" in identity.inner_text()
    for name in ("Record", "Community", "Activity", "Penalties"):
        assert snapshot.get_by_role("region", name=re.compile(rf"^{name}")).is_visible()
    # The points on the page add up to the score shown.
    points = [
        int(text.split("/")[0])
        for text in snapshot.locator(".trust-item .trust-points").all_inner_texts()
    ]
    assert sum(points) == max(stored.score, 0)
    works_link = snapshot.get_by_role("link", name="Published work")
    if works_link.count():
        assert works_link.first.get_attribute("href").endswith("#works")
    screenshot("trust-snapshot-desktop")
    snapshot.screenshot(path=str(SCREENSHOTS / "trust-snapshot-panel-desktop.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    snapshot.scroll_into_view_if_needed()
    assert quick.is_visible()
    screenshot("trust-snapshot-phone")
    snapshot.screenshot(path=str(SCREENSHOTS / "trust-snapshot-panel-phone.png"))

    snapshot.get_by_role("link", name="How trust scores work").first.click()
    page.wait_for_url("**/trust/")
    assert page.get_by_role("heading", name="How trust scores work", level=1).is_visible()
    assert page.get_by_role(
        "heading", name="How an owner can raise their score honestly"
    ).is_visible()
    screenshot("trust-explain-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot("trust-explain-desktop")

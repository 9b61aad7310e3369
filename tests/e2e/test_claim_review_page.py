"""Staff read a claim in the admin, in Chromium: long evidence stays in its card, the page fits
a phone, the breadcrumb links are told apart from the text and the claimant's headings breathe."""

import pytest

from profiles.models import Claim
from tests.e2e.conftest import signed_in
from tests.e2e.test_curation_home import axe_violations
from tests.e2e.test_graph_explorer import DESKTOP, PHONE
from tests.factories import AuthorFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# One long run of letters: nothing in it lets the browser break the line.
LONG_LINK = "https://lab.example.edu/people/" + "averyverylongpagename" * 8


@pytest.fixture
def claim_page(live_server, browser):
    curator = UserFactory(username="curator", is_staff=True, is_superuser=True)
    claim = Claim.objects.create(
        user=UserFactory(username="claimant"),
        author=AuthorFactory(display_name="Mary Somerville"),
        method="evidence",
        evidence=f"My page is {LONG_LINK}",
        evidence_links=[LONG_LINK],
    )

    def open_at(viewport):
        page = signed_in(browser, live_server, curator, viewport).new_page()
        page.goto(f"{live_server.url}/admin/profiles/claim/{claim.pk}/change/")
        return page

    return open_at


def right_edge(box) -> float:
    return box["x"] + box["width"]


def test_a_long_evidence_link_stays_inside_the_claim_card(claim_page):
    page = claim_page(DESKTOP)
    card = page.locator("section[aria-labelledby=review-claim]").bounding_box()
    for part in ("#claim-evidence", f"a[href='{LONG_LINK}']"):
        assert right_edge(page.locator(part).bounding_box()) <= right_edge(card) + 0.5, part


def test_the_claim_review_fits_a_phone(claim_page):
    page = claim_page(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for name in ("note", "reason"):
        box = page.locator(f"textarea[name={name}]").bounding_box()
        assert right_edge(box) <= PHONE["width"], name


def test_breadcrumb_links_are_told_apart_from_the_text(claim_page):
    page = claim_page(DESKTOP)
    found = axe_violations(page, "div.breadcrumbs")
    assert [v for v in found if v["id"] == "link-in-text-block"] == []


def test_the_claimants_headings_stand_apart_from_what_comes_before(claim_page):
    page = claim_page(DESKTOP)
    card = page.locator("section[aria-labelledby=review-claimant]")
    for heading in ("Their claims", "Their latest steps"):
        gap = card.get_by_role("heading", name=heading).evaluate(
            "h => h.getBoundingClientRect().top"
            " - h.previousElementSibling.getBoundingClientRect().bottom"
        )
        assert gap >= 12, heading

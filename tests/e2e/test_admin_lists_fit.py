"""Staff read the import runs and claims lists in the admin, in Chromium: each results table
fits its part of the page on a phone and at desktop width with the navigation sidebar open,
so no column is cut off and the page never scrolls sideways."""

import pytest

from catalogue.models import ImportRun
from profiles.models import Claim
from tests.e2e.conftest import SCREENSHOTS, signed_in
from tests.factories import AuthorFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LONG_ADDRESS = "a.very.long.claimant.address@department-of-computer-science.example-university.edu"
LONG_PATH = "/srv/imports/" + "recorded-snapshot-of-openalex-works/" * 4 + "part-0001.jsonl.gz"

# The results table's width and that of the box it sits in, and the page's own width.
FIT = """() => {
  const table = document.querySelector('#result_list');
  return {
    table: table.getBoundingClientRect().width,
    box: table.parentElement.clientWidth,
    page: document.documentElement.scrollWidth,
  };
}"""


@pytest.fixture
def lists(live_server, browser):
    curator = UserFactory(username="curator", is_staff=True, is_superuser=True)
    for number in range(3):
        Claim.objects.create(
            user=UserFactory(email=f"{number}.{LONG_ADDRESS}"),
            author=AuthorFactory(display_name="Mary Fairfax Greig Somerville"),
            method=["evidence", "email", "orcid"][number],
            verified_email=f"{number}.{LONG_ADDRESS}" if number == 1 else "",
        )
    ImportRun.objects.create(
        source="openalex",
        kind="file",
        parameters={"paths": [LONG_PATH]},
        status="succeeded",
        processed=120_000,
        total=120_000,
        counters={"created": 100_000, "updated": 20_000, "unchanged": 0, "problems": 12},
    )
    ImportRun.objects.create(
        source="arxiv",
        kind="category",
        parameters={"category": "cs.LG"},
        status="failed",
        error="arXiv answered 503 Service Unavailable three times; the run stopped at page 41",
    )

    def open_at(path, viewport):
        page = signed_in(browser, live_server, curator, viewport).new_page()
        page.goto(f"{live_server.url}{path}")
        return page

    return open_at


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize(
    ("path", "name"),
    [("/admin/publications/importrun/", "import-runs"), ("/admin/profiles/claim/", "claims")],
)
def test_a_results_table_fits_its_part_of_the_page(lists, path, name, viewport):
    page = lists(path, viewport)
    if viewport is DESKTOP:
        assert page.locator("#main.shifted #nav-sidebar").is_visible()  # the sidebar is open
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"admin-{name}-{viewport['width']}.png"), full_page=True)
    fit = page.evaluate(FIT)
    assert fit["page"] <= viewport["width"]
    assert fit["table"] <= fit["box"] + 0.5, fit

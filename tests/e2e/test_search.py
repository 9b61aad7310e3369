"""A visitor searches the demo data in Chromium: names, words, filters."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(settings):
    call_command("demo", verbosity=0)


def test_searching_a_name_and_filtering_works(demo, live_server, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url)
    page.get_by_role("searchbox", name="Search researchers and works").fill("pekhimenko")
    page.locator(".site-search").get_by_role("button", name="Search").click()
    page.wait_for_url("**/search/?q=pekhimenko")
    researchers = page.get_by_role("region", name="Researchers")
    assert researchers.get_by_role("link", name="Gennady Pekhimenko").first.is_visible()
    screenshot("search-name")

    page.goto(f"{live_server.url}/search/?q=training")
    works = page.get_by_role("region", name="Works")
    total = works.locator(".work-item").count()
    assert total >= 1
    filters = page.get_by_role("complementary")
    assert filters.get_by_role("heading", name="Filter works").is_visible()
    filters.get_by_label("From", exact=True).fill("2100")
    filters.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**year_from=2100**")
    empty = page.get_by_role("region", name="Works").inner_text()
    assert "“training” with these filters" in empty and "best matches first" not in empty
    assert "Search again without the filters" in empty
    page.get_by_role("link", name="Clear filters").click()
    expect(page.get_by_role("region", name="Works").locator(".work-item")).to_have_count(total)
    screenshot("search-works-desktop")

    page.set_viewport_size({"width": 390, "height": 844})
    filters.get_by_label("To", exact=True).fill("1999")
    filters.get_by_label("From", exact=True).fill("2005")
    filters.get_by_role("button", name="Apply filters").click()
    page.wait_for_url("**year_from=2005&year_to=1999**")
    expect(page.get_by_text("The end year comes before the start year.")).to_be_visible()
    reversed_years = "The years are reversed (from 2005 to 1999), so no year filter was applied"
    expect(page.get_by_role("alert").filter(has_text=reversed_years)).to_be_visible()
    screenshot("search-phone-bad-filter")


def test_an_id_in_the_search_box_opens_its_page_and_a_list_downloads(
    demo, live_server, page, screenshot
):
    from catalogue.models import Work

    work = Work.objects.visible().exclude(doi=None).order_by("id").first()
    author = work.authorships.order_by("position").first().author
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url)
    box = page.get_by_role("searchbox", name="Search researchers and works")
    box.fill(f"https://doi.org/{work.doi.upper()}")
    page.locator(".site-search").get_by_role("button", name="Search").click()
    page.wait_for_url(f"**{work.get_absolute_url()}")
    screenshot("search-doi-opens-work")

    page.goto(f"{live_server.url}/search/?q={author.display_name}")
    assert page.get_by_role("heading", name=f"Works by {author.display_name}").is_visible()
    screenshot("search-name-lists-their-works")

    page.goto(f"{live_server.url}{author.get_absolute_url()}")
    with page.expect_download() as download:
        page.locator(".export-links").get_by_role("link", name="BibTeX").click()
    text = download.value.path().read_text(encoding="utf-8")
    assert text.count("\n@") + text.startswith("@") >= 1
    assert download.value.suggested_filename.endswith("-works.bib")
    screenshot("researcher-export-links")

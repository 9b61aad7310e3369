"""A visitor opens the home page in Chromium."""

import pytest

from tests.factories import AuthorshipFactory, InstitutionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_empty_home_page_tells_a_visitor_how_to_import(live_server, page, screenshot):
    page.goto(live_server.url)
    assert page.title() == "Scholar Pages"
    assert page.get_by_role("heading", name="Nothing has been imported yet").is_visible()
    assert page.get_by_role("searchbox", name="Search researchers and works").is_visible()
    assert page.get_by_role("link", name="Sign in").is_visible()
    assert screenshot("home-empty").stat().st_size > 10_000


def test_home_page_lists_researchers_and_search_box_works(live_server, page, screenshot):
    lab = InstitutionFactory(name="Institute for Worked Examples")
    AuthorshipFactory(
        author__display_name="Mary Somerville",
        author__last_known_institution=lab,
        work__title="On the connexion of the physical sciences",
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url)
    researchers = page.get_by_role("region", name="Recently imported researchers")
    assert researchers.get_by_role("link", name="Mary Somerville").is_visible()
    assert researchers.get_by_text("Institute for Worked Examples").is_visible()
    screenshot("home-desktop")

    page.set_viewport_size({"width": 390, "height": 844})
    screenshot("home-phone")
    page.get_by_role("searchbox").fill("connexion")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/search/?q=connexion")
    assert page.get_by_role("link", name="On the connexion of the physical sciences").is_visible()

    page.get_by_role("link", name="Mary Somerville").first.click()
    assert page.get_by_role("heading", level=1).inner_text() == "Mary Somerville"
    screenshot("researcher-basic")

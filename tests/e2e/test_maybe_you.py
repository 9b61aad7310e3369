"""In Chromium: the owner's "These may be you" fits a desktop and a phone, and "Not me" answers."""

import re

import pytest
from playwright.sync_api import expect

from catalogue.models import MergeCandidate, UnlinkedAuthorship
from tests.e2e.conftest import SCREENSHOTS, signed_in
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.people import holds, person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LONG_TITLE = "On the " + "remarkably " * 12 + "long titles some works carry"


@pytest.fixture
def grace():
    """Grace Hopper's record, held by her, with a candidate, a loose record and a byline."""
    author = AuthorFactory(display_name="Grace Hopper")
    user = person("grace")
    holds(user, author)
    aiken = AuthorFactory(display_name="Howard Aiken")
    AuthorshipFactory(author=author, work=WorkFactory(title="The first compiler"))
    other = AuthorFactory(display_name="G. Hopper", openalex_id="A5000000077")
    AuthorshipFactory(author=other, work=WorkFactory(title=LONG_TITLE))
    MergeCandidate.objects.create(
        kind="author",
        author_a=author,
        author_b=other,
        reason="may be one person: initials agree, 1 shared co-author, Yale University",
        score=0.64,
    )
    loose = AuthorFactory(display_name="Grace Brewster Murray Hopper")
    AuthorshipFactory(author=loose, work=WorkFactory(title="Loose work"))
    work = WorkFactory(title="A byline left open")
    AuthorshipFactory(work=work, author=aiken, position=0)
    UnlinkedAuthorship.objects.create(work=work, position=1, raw_name="Hopper, G.", source="arxiv")
    return author, user


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_section_fits_and_not_me_answers(live_server, browser, grace, viewport):
    author, user = grace
    page = signed_in(browser, live_server, user, viewport).new_page()
    page.goto(f"{live_server.url}{author.get_absolute_url()}")
    section = page.get_by_role("region", name="These may be you")
    expect(section).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    expect(section.get_by_role("button", name="This is me")).to_have_count(3)
    box = section.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SCREENSHOTS / f"maybe-you-{viewport['width']}.png"))

    section.get_by_role("button", name=re.compile(r"^Not me")).click()
    page.wait_for_url("**#maybe-you")
    expect(page.get_by_text("that record is someone else")).to_be_visible()
    section = page.get_by_role("region", name="These may be you")
    expect(section.get_by_role("button", name="This is me")).to_have_count(2)
    assert MergeCandidate.objects.get().status == "kept_apart"

"""A visitor reads a work page of the demo data in Chromium, and hostile imports stay inert."""

from pathlib import Path

import pytest
from django.core.management import call_command

from catalogue.models import Work
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo():
    call_command("demo", verbosity=0)


def test_the_demo_work_page(demo, live_server, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    # The arXiv address leads to our page.
    page.goto(f"{live_server.url}/works/arxiv/2102.04285v1/")
    title = "RL-Scope: Cross-Stack Profiling for Deep Reinforcement Learning Workloads"
    assert page.get_by_role("heading", level=1).inner_text() == title
    assert page.title().startswith("RL-Scope")

    authors = page.get_by_test_id("authors")
    author_link = authors.get_by_role("link", name="Gennady Pekhimenko")
    assert author_link.is_visible()
    assert "/researchers/" in author_link.get_attribute("href")

    identifiers = page.get_by_test_id("identifiers")
    doi = identifiers.get_by_role("link", name="10.48550/arxiv.2102.04285")
    assert doi.get_attribute("href") == "https://doi.org/10.48550/arxiv.2102.04285"
    arxiv = identifiers.get_by_role("link", name="arXiv:2102.04285")
    assert arxiv.get_attribute("href") == "https://arxiv.org/abs/2102.04285"
    # The demo's OpenAlex-form id is local: named, never sent to openalex.org.
    assert "W9000000004 (local, not at OpenAlex)" in identifiers.inner_text()
    assert identifiers.get_by_role("link", name="W9000000004").count() == 0
    assert "from OpenAlex" in identifiers.inner_text()
    assert page.get_by_test_id("citations").inner_text() == "20 from OpenAlex"
    assert "Proceedings of the 4th MLSys Conference" in page.locator(".work-comments").inner_text()
    actions = page.get_by_role("group", name="Links and downloads")
    assert actions.get_by_role("link", name="Code").get_attribute("href") == (
        "https://github.com/UofT-EcoSystem/rlscope"
    )
    assert actions.get_by_role("link", name="PDF").is_visible()

    # Exports download as files, with their content types.
    with page.expect_download() as download_info:
        actions.get_by_role("link", name="BibTeX").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".bib")
    # The key names the first author of the byline: James Gleeson.
    assert Path(download.path()).read_text("utf-8").startswith("@misc{gleeson2021rlscope,")
    work = Work.objects.get(arxiv_id="2102.04285")
    bib = page.request.get(f"{live_server.url}/works/{work.pk}/export.bib")
    assert bib.headers["content-type"] == "application/x-bibtex; charset=utf-8"
    ris = page.request.get(f"{live_server.url}/works/{work.pk}/export.ris")
    assert ris.headers["content-type"] == "application/x-research-info-systems; charset=utf-8"
    assert ris.headers["content-disposition"].startswith("attachment;")
    assert "TY  - UNPB" in ris.text()

    # More like this: five works, each with a reason, abstracts folded.
    similar = page.get_by_role("region", name="More like this")
    items = similar.locator(".similar-item")
    assert items.count() == 5
    for index in range(5):
        assert items.nth(index).locator(".reason").count() >= 1
    # The data collection paper shares four of its authors (demo bylines are the papers').
    assert "shares authors Gennady Pekhimenko, James Gleeson" in similar.inner_text()
    first = items.first
    full_text = first.locator("details .abstract-body")
    assert not full_text.is_visible()
    first.get_by_text("more", exact=True).click()
    assert full_text.is_visible()
    assert not first.get_by_text("more", exact=True).is_visible()
    screenshot("work-page-desktop")
    first.get_by_text("less", exact=True).click()
    assert not full_text.is_visible()
    assert first.get_by_text("more", exact=True).is_visible()

    # A similar work's title leads to its page.
    other_title = first.locator("h3 a").inner_text()
    first.locator("h3 a").click()
    assert page.get_by_role("heading", level=1).inner_text() == other_title

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/works/arxiv/2102.04285/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    screenshot("work-page-phone")


def test_a_hostile_record_runs_no_script(live_server, page, screenshot):
    author = AuthorFactory(display_name='Mallory <img src=x onerror="window.__xss=1">')
    work = WorkFactory(
        title='<script>window.__xss=2</script>Hostile <img src=x onerror="alert(3)"> record',
        abstract=(
            '<p onmouseover="window.__xss=4">Move here.</p>'
            '<a href="javascript:window.__xss=5">Click here</a> '
            '<svg onload="window.__xss=6"></svg><iframe src="javascript:alert(7)"></iframe>'
            '<details open ontoggle="window.__xss=8">x</details> $a<b$ stays.'
        ),
        comments='<img src=x onerror="window.__xss=9"> javascript:alert(10)',
        publication_year=2024,
    )
    AuthorshipFactory(work=work, author=author)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}{work.get_absolute_url()}")
    assert "Hostile" in page.get_by_role("heading", level=1).inner_text()
    abstract = page.locator(".abstract-body")
    abstract.hover()
    page.get_by_text("Click here").click()  # no link left: nothing happens
    assert "$a<b$ stays." in abstract.inner_text()
    screenshot("work-page-hostile")
    for path in ("/", "/search/?q=Hostile", author.get_absolute_url()):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("load")
        assert page.evaluate("typeof window.__xss") == "undefined", path
    page.goto(f"{live_server.url}{work.get_absolute_url()}")
    page.wait_for_load_state("load")
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert dialogs == []

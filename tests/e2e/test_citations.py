"""A visitor reads a work's References and Cited by sections in Chromium, wide and narrow."""

from __future__ import annotations

from datetime import date

import pytest

from catalogue.models import Citation, Work
from tests.factories import AuthorshipFactory, WorkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def cite(citing: Work, cited: Work | None = None, openalex_id: str = "") -> None:
    Citation.objects.create(
        citing=citing,
        citing_openalex_id=citing.openalex_id,
        cited=cited,
        cited_openalex_id=cited.openalex_id if cited else openalex_id,
    )


@pytest.fixture
def work() -> Work:
    work = WorkFactory(
        openalex_id="W100",
        title="Attention is a graph: message passing for sequence models",
        abstract="We read attention as message passing on a complete graph.",
        cited_by_count=41,
        publication_date=date(2020, 6, 1),
    )
    AuthorshipFactory(work=work)
    held = WorkFactory(
        openalex_id="W200",
        title="Neural message passing for quantum chemistry",
        publication_date=date(2017, 4, 4),
    )
    cite(work, held)
    for number in range(3):
        cite(work, openalex_id=f"W30000000{number}")
    for number in range(12):
        citing = WorkFactory(
            openalex_id=f"W5{number:02d}",
            title=f"A follow-up study number {number} on graph attention for long documents",
            publication_date=date(2021 + number % 4, 1 + number, 1),
        )
        AuthorshipFactory(work=citing)
        cite(citing, work)
    return work


def test_the_citation_sections_wide_and_narrow(work, live_server, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}{work.get_absolute_url()}")
    references = page.locator("#references")
    assert references.get_by_role("heading", level=2).inner_text() == (
        "References (4; 1 on this site)"
    )
    held = references.get_by_role("link", name="Neural message passing for quantum chemistry")
    assert held.is_visible()
    outside = references.get_by_role("link", name="W300000000")
    assert outside.get_attribute("href") == "https://openalex.org/W300000000"
    cited_by = page.locator("#cited-by")
    assert cited_by.get_by_role("heading", level=2).inner_text() == (
        "Cited by (12 on this site; 41 per OpenAlex)"
    )
    titles = cited_by.locator(".work-title").all_inner_texts()
    assert len(titles) == 10
    years = [
        int(t)
        for t in cited_by.locator("time").evaluate_all(
            "nodes => nodes.map(n => n.getAttribute('datetime').slice(0, 4))"
        )
    ]
    assert years == sorted(years, reverse=True)
    screenshot("citations-desktop")

    cited_by.get_by_role("link", name="Next →").click()
    page.wait_for_url("**cited_by=2**")
    assert page.locator("#cited-by .work-title").count() == 2
    assert "Page 2 of 2" in page.locator("#cited-by").inner_text()

    held = page.locator("#references").get_by_role(
        "link", name="Neural message passing for quantum chemistry"
    )
    held.click()
    page.wait_for_url("**/works/**")
    assert page.get_by_role("heading", level=1).inner_text().startswith("Neural message passing")
    assert "Cited by (1 on this site" in page.locator("#cited-by").inner_text()

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}{work.get_absolute_url()}")
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 390, f"the page is {overflow}px wide at 390px"
    assert page.locator("#references").is_visible()
    box = page.locator("#cited-by").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 391
    screenshot("citations-390")

"""A visitor reads the demo researcher page in Chromium, on a desktop and on a phone."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from catalogue.models import Author, AuthorMetrics, Work
from tests.e2e.conftest import SCREENSHOTS, WORDS_CUT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_researcher(live_server):
    call_command("demo", verbosity=0)
    return Author.objects.get(openalex_id="A9000000002")  # Amar Phanishayee, seed 002


def work_titles(page) -> list[str]:
    # Text content: items far below the fold are not rendered yet (content-visibility).
    return [t.strip() for t in page.locator(".work-item .work-title").all_text_contents()]


def stat(page, label: str) -> str:
    item = page.locator(".stat").filter(has=page.locator("dt", has_text=label)).first
    return item.locator("dd").inner_text()


def test_demo_researcher_page(live_server, page, screenshot, demo_researcher):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + demo_researcher.get_absolute_url())

    expect(page.get_by_role("heading", level=1)).to_have_text("Amar Phanishayee")
    # No seed shows his affiliation; Daydream's byline places him at Microsoft Research.
    expect(page.get_by_role("list", name="Badges")).to_contain_text("Microsoft Research")
    # Counts from the metrics row: the citations add up the works' counts (seed 002's total).
    assert stat(page, "works") == "15"
    assert stat(page, "close collaborators") == "4"
    assert stat(page, "citations") == "2,896"
    expect(page.locator("#works-count")).to_have_text("15 published items")
    assert len(work_titles(page)) == 15

    # "How is this computed?" opens the AI score formula.
    ai = page.locator(".score").filter(has_text="AI score")
    ai.get_by_text("How is this computed?").click()
    expect(ai.get_by_text("halves every 5 years")).to_be_visible()

    # Newest first by default; sorting by title reorders and goes into the address.
    assert work_titles(page)[0].startswith(("Integrated Hardware", "Forecasting GPU"))
    page.get_by_role("navigation", name="Sort works").get_by_role("link", name="Title").click()
    page.wait_for_url("**sort=title**")
    assert (
        work_titles(page)[0] == "A Study on the Intersection of GPU Utilization and CNN Inference"
    )
    titles = work_titles(page)
    assert titles == sorted(titles, key=str.lower)

    # A year filter narrows the list and keeps the sort; the address can be shared.
    page.get_by_label("From year").fill("2023")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**year_from=2023**")
    assert "sort=title" in page.url
    expect(page.locator("#works-count")).to_have_text("3 published items match these filters")
    assert work_titles(page) == [
        "Forecasting GPU Performance for Deep Learning Training and Inference",
        "Integrated Hardware Architecture and Device Placement Search",
        "Packrat: Automatic Reconfiguration for Latency Minimization in CPU-based DNN Serving",
    ]
    shared = page.url
    page.goto(shared)
    assert len(work_titles(page)) == 3

    # A bad value is explained, and nothing is lost.
    page.goto(shared.partition("#")[0] + "&year_to=abc")
    expect(page.get_by_role("alert")).to_contain_text("Enter a year such as 2024.")
    assert len(work_titles(page)) == 3

    # The abstract opens with "more" and closes with "less", without JavaScript.
    page.goto(live_server.url + demo_researcher.get_absolute_url())
    # The graph above the list loads when it comes near the screen and changes its height:
    # let it settle, so the click lands where the toggle is.
    forecasting = page.locator(".work-item").filter(has_text="Forecasting GPU Performance")
    forecasting.scroll_into_view_if_needed()
    expect(page.locator(".graph-slice")).to_be_attached(timeout=30_000)
    abstract = forecasting.locator("details.work-abstract")
    full = abstract.locator(".abstract-full")
    expect(full).to_be_hidden()
    abstract.locator(".toggle-more").click()
    expect(full).to_be_visible()
    expect(full).to_contain_text("bounding each estimate with basic performance laws")
    abstract.locator(".toggle-less").click()
    expect(full).to_be_hidden()

    # "et al." opens to the rest of the authors, each a link to their page.
    megatron = page.locator(".work-item").filter(has_text="Megatron-LM")
    expect(megatron.get_by_role("link", name="Deepak Narayanan")).to_be_visible()
    megatron.locator(".more-authors summary").click()
    full_list = megatron.locator(".authors-all")
    expect(full_list.get_by_role("link", name="Amar Phanishayee")).to_be_visible()
    expect(megatron.locator(".authors-short")).to_be_hidden()
    assert full_list.get_by_role("link").count() == 4

    # The Atom feed is announced in the head and linked on the page.
    feed = page.locator('link[rel="alternate"][type="application/atom+xml"]')
    href = feed.get_attribute("href")
    assert href == f"/researchers/{demo_researcher.pk}/feed.atom"
    response = page.request.get(live_server.url + href)
    assert response.ok and response.headers["content-type"].startswith("application/atom+xml")
    assert "Forecasting GPU Performance" in response.text()
    expect(page.get_by_role("link", name="Atom feed", exact=True)).to_be_visible()

    expect(page.get_by_role("img", name="Citations per year of Amar Phanishayee")).to_be_visible()
    screenshot("researcher-desktop")


def test_chart_and_phone_layout(live_server, page, screenshot, demo_researcher):
    # One bar and one table row per year of the works' yearly counts.
    by_year = AuthorMetrics.objects.get(author=demo_researcher).citations_by_year
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + demo_researcher.get_absolute_url())
    chart = page.get_by_role("img", name="Citations per year of Amar Phanishayee")
    expect(chart).to_be_visible()
    assert chart.locator("rect.bar").count() == len(by_year) > 1
    table = page.locator("table", has_text="Citations per year of Amar Phanishayee")
    assert table.locator("tbody tr").count() == len(by_year)
    year, count = next(iter(by_year.items()))
    assert table.locator("tbody tr").first.inner_text().split() == [year, str(count)]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".citations-panel").screenshot(path=str(SCREENSHOTS / "researcher-chart.png"))

    page.get_by_role("navigation", name="Sort works").get_by_role("link", name="Most cited").click()
    page.wait_for_url("**sort=cited**")
    most_cited = Work.objects.filter(authorships__author=demo_researcher).order_by(
        "-cited_by_count"
    )[0]
    assert work_titles(page)[0] == most_cited.title

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + demo_researcher.get_absolute_url())
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(chart).to_be_visible()
    # Nothing wider than the phone: no sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(WORDS_CUT, ".stat-grid") == []  # no figure or label broken mid-word
    screenshot("researcher-phone")

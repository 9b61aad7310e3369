"""A visitor goes from a work to its venue, institution and topic pages and back, in Chromium."""

import json

import pytest

from catalogue.models import AuthorInstitution, Institution, Topic, Venue, WorkTopic
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture
def world():
    """Works at one venue, on one topic, written at one institution, as an import leaves them."""
    institution = InstitutionFactory(
        name="Université du Québec à Montréal",
        ror="002rjbv21",
        openalex_id="I159129438",
        country_code="CA",
        type="education",
    )
    venue = VenueFactory(
        name="Proceedings of the ACM on Programming Languages",
        openalex_id="S4210216081",
        issn_l="2475-1421",
        publisher="Association for Computing Machinery",
    )
    field = Topic.objects.create(key="openalex:fields/17", name="Computer Science", kind="field")
    topic = Topic.objects.create(
        key="openalex:T10054",
        name="Parallel Computing and Optimization Techniques",
        kind="topic",
        parent=field,
    )
    for n in range(26):
        work = WorkFactory(
            title=f"Scheduling collective communication on GPU clusters, part {n + 1}",
            abstract="We study how to overlap computation and communication in distributed "
            "training of large models, and measure the speedups on GPU clusters.",
            venue=venue,
            publication_year=2015 + n % 10,
            cited_by_count=n * 3,
        )
        WorkTopic.objects.create(work=work, topic=topic, source="openalex", is_primary=True)
        for position in range(3):
            author = AuthorFactory(
                display_name=f"{NAMES[(n + position) % len(NAMES)]} {n}",
                last_known_institution=institution,
            )
            link = AuthorshipFactory(work=work, author=author, position=position)
            link.institutions.add(institution)
            AuthorInstitution.objects.get_or_create(author=author, institution=institution)
    return {Institution: institution, Venue: venue, Topic: topic}


NAMES = ["Abhinav Jangda", "Jun Huang", "Olli Saarikivi", "Madan Musuvathi", "Heather Piwowar"]


@pytest.mark.parametrize("model", [Institution, Venue, Topic], ids=lambda m: m.__name__.lower())
def test_an_entity_page_on_desktop_and_phone(world, live_server, page, screenshot, model):
    page.add_init_script(LISTEN)
    entity = world[model]
    kind = model.__name__.lower()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + entity.get_absolute_url())
    assert page.get_by_role("heading", level=1).inner_text().strip()
    counts = page.locator(".entity-counts").inner_text()
    assert "works on this site" in counts
    assert page.locator("#works .work-item").count() == 20
    assert page.locator("#works .pagination").inner_text().startswith("Page 1 of 2")
    # The page names itself to machines too: an absolute canonical address.
    canonical = page.locator('link[rel="canonical"]').get_attribute("href")
    assert canonical.endswith(entity.get_absolute_url())
    screenshot(f"{kind}-page-desktop")
    assert page.evaluate("window.__cspViolations") == []

    # A work in the list leads to its page, and that page leads back here.
    title = page.locator("#works .work-item h3 a").first
    title.click()
    page.wait_for_url("**/works/**")
    page.locator(f'main a[href="{entity.get_absolute_url()}"]').first.click()
    page.wait_for_url(f"**{entity.get_absolute_url()}")

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + entity.get_absolute_url())
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    screenshot(f"{kind}-page-phone")


def test_a_work_page_carries_json_ld_a_browser_can_read(world, live_server, page):
    page.add_init_script(LISTEN)
    work = world[Venue].works.first()
    page.goto(live_server.url + work.get_absolute_url())
    body = page.locator('script[type="application/ld+json"]').text_content()
    data = json.loads(body)
    assert data["@type"] == "ScholarlyArticle"
    assert page.locator('meta[name="citation_title"]').get_attribute("content")
    # JSON-LD is data: the strict script policy lets it be without a violation.
    assert page.evaluate("window.__cspViolations") == []

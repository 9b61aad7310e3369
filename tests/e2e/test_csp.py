"""Under the strict Content-Security-Policy the pages still work and nothing is refused."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from catalogue.models import Author
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


@pytest.fixture
def watched(page):
    """The page, with every CSP violation and console error it reports collected."""
    errors: list[str] = []
    page.add_init_script(LISTEN)
    page.on(
        "console",
        lambda message: errors.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: errors.append(str(error)))

    def violations() -> list[str]:
        return page.evaluate("window.__cspViolations || []") + [
            text for text in errors if "Content Security Policy" in text or "Refused" in text
        ]

    page.violations = violations
    return page


@pytest.fixture
def demo_researcher(live_server):
    cache.clear()
    call_command("demo", verbosity=0)
    return Author.objects.get(openalex_id="A9000000002")


def test_record_pages_and_their_htmx_parts_run_without_violations(
    live_server, watched, demo_researcher
):
    work = demo_researcher.works.exclude(venue=None).order_by("pk").first()
    topic = work.topics.order_by("pk").first()
    institution = demo_researcher.last_known_institution
    paths = [
        "/",
        demo_researcher.get_absolute_url(),
        "/search/?q=phanishayee",
        "/trust/",
        work.get_absolute_url(),  # JSON-LD is data, not script the policy refuses
        reverse("graph:explorer", args=[demo_researcher.pk]),
        reverse("graph:work-explorer", args=[work.pk]),
        work.venue.get_absolute_url(),
        *([topic.get_absolute_url()] if topic else []),
        *([institution.get_absolute_url()] if institution else []),
        reverse("status"),
    ]
    for path in paths:
        watched.goto(live_server.url + path)
        watched.wait_for_load_state("networkidle")
        assert watched.violations() == [], path
    # The explorers zoom with their own script: a refused script would leave the picture still.
    for path in paths[5:7]:
        watched.goto(live_server.url + path)
        svg = watched.locator("#graph-viewport svg.graph-svg")
        before = svg.get_attribute("viewBox")
        toolbar = watched.get_by_role("toolbar", name="Zoom and move the picture")
        toolbar.get_by_role("button", name="Zoom in").click()
        expect(svg).not_to_have_attribute("viewBox", before)
        assert watched.violations() == [], path
    watched.goto(live_server.url + demo_researcher.get_absolute_url())
    watched.locator(".graph-section").scroll_into_view_if_needed()  # htmx loads on the way
    slice_ = watched.locator(".graph-section .graph-slice")
    expect(slice_.locator("svg.graph-svg")).to_be_visible()  # loaded by htmx
    assert watched.evaluate("typeof htmx") == "object"
    assert watched.evaluate("htmx.config.includeIndicatorStyles") is False
    assert watched.locator("style").count() == 0  # htmx added none
    assert watched.violations() == []


def test_api_docs_render_swagger_ui(live_server, watched):
    watched.goto(live_server.url + "/api/docs/")
    expect(watched.locator(".swagger-ui .opblock").first).to_be_visible(timeout=15000)
    expect(watched.get_by_text("/api/v1/works/").first).to_be_visible()
    assert watched.violations() == []


def test_admin_sign_in_and_the_import_form_script_work(live_server, watched):
    UserFactory(username="curator", is_staff=True, is_superuser=True)
    watched.goto(live_server.url + "/admin/login/?next=/admin/publications/importrun/new/")
    watched.fill("#id_username", "curator")
    watched.fill("#id_password", "correct horse battery staple")
    watched.get_by_role("button", name="Log in").click()
    watched.wait_for_url("**/importrun/new/")
    watched.select_option("#id_source", "arxiv")
    openalex = watched.locator('#id_kind optgroup[label="OpenAlex"]')
    expect(openalex).to_have_attribute("disabled", "")
    expect(watched.locator('#id_kind optgroup[label="arXiv"]')).not_to_have_attribute(
        "disabled", ""
    )
    assert watched.violations() == []

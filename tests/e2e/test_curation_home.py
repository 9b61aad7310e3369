"""Staff meet the curation home in the admin and import an uploaded file, in Chromium."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from catalogue.models import IdentityRequest, ImportProblem, ImportRun, SplitProposal, Work
from profiles.models import Claim
from tests.curation.curation_records import openalex_work
from tests.e2e.test_curation import log_in
from tests.e2e.test_graph_explorer import AXE, DESKTOP, PHONE
from tests.factories import AuthorFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture
def curator():
    return UserFactory(username="curator", is_staff=True, is_superuser=True)


@pytest.fixture
def csp_reports(page):
    """Messages of anything the Content-Security-Policy refused on the page."""
    refused = []

    def seen(message) -> None:
        if "Content Security Policy" in message.text:
            refused.append(f"{page.url} {message.location} {message.text[:60]}")

    page.on("console", seen)
    return refused


def axe_violations(page, selector: str) -> list[dict]:
    """axe-core's WCAG A/AA violations inside ``selector`` (our part of the admin page)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed under node_modules/")
    page.evaluate(AXE.read_text())
    return page.evaluate(
        """async (selector) => (await axe.run(selector, {runOnly: ['wcag2a', 'wcag2aa',
        'wcag21aa']})).violations.map(v => ({id: v.id, nodes: v.nodes.map(n => n.target)}))""",
        selector,
    )


def some_waiting_work() -> None:
    for _ in range(2):
        Claim.objects.create(
            user=UserFactory(), author=AuthorFactory(), status="pending", method="evidence"
        )
    ImportProblem.objects.create(source="openalex", error="work W1 has no title")
    IdentityRequest.objects.create(
        kind="join_record", author=AuthorFactory(), other_author=AuthorFactory(), evidence="me"
    )
    SplitProposal.objects.create(
        author=AuthorFactory(), groups=[{"work_ids": [1]}, {"work_ids": [2]}], reason="two circles"
    )
    ImportRun.objects.create(
        source="openalex",
        kind="author",
        parameters={"id": "A5017898742"},
        status="running",
        processed=120,
        total=480,
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_curation_home_shows_what_waits_and_what_runs(
    live_server, page, screenshot, curator, csp_reports, size
):
    some_waiting_work()
    page.set_viewport_size(SIZES[size])
    log_in(page, live_server, "/admin/")
    home = page.get_by_role("region", name="Work for staff")
    expect(home).to_be_visible()
    pending = home.get_by_role("link", name="2 Claims pending review")
    expect(pending).to_be_visible()
    expect(home.get_by_role("link", name="1 Import problems open")).to_be_visible()
    expect(home.get_by_role("link", name="1 Identity requests pending")).to_be_visible()
    expect(home.get_by_role("link", name="1 Split proposals open")).to_be_visible()
    expect(pending).to_contain_text("oldest waiting")
    expect(home.get_by_text("120 / 480 (25%)")).to_be_visible()
    box = home.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= SIZES[size]["width"] + 1
    screenshot(f"curation-home-{size}")
    assert csp_reports == []
    assert axe_violations(page, ".curation-home") == []
    csp_reports.clear()  # axe's own evaluated script adds a style the policy refuses
    pending.click()
    page.wait_for_url("**/admin/profiles/claim/?status__exact=pending")
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    assert csp_reports == []


@pytest.mark.parametrize("size", SIZES)
def test_staff_upload_a_recorded_file_and_watch_it_import(
    live_server, page, screenshot, curator, csp_reports, tmp_path, settings, size
):
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"
    recorded = tmp_path / "works-page.json"
    works = [
        openalex_work(n, f"Offline widgets, part {n}", [(f"A500000010{n}", "Ada Lovelace")])
        for n in range(1, 4)
    ]
    recorded.write_text(json.dumps({"meta": {"count": 3}, "results": works}))

    page.set_viewport_size(SIZES[size])
    log_in(page, live_server, "/admin/publications/importrun/new/")
    form = page.locator("form.curation-form")
    screenshot(f"curation-new-import-{size}")
    assert csp_reports == []
    assert axe_violations(page, "#content-main") == []
    csp_reports.clear()  # axe's own evaluated script adds a style the policy refuses
    form.get_by_label("Recorded file").set_input_files(str(recorded))
    form.get_by_role("button", name="Start the import").click()
    page.wait_for_url("**/admin/publications/importrun/*/change/")
    expect(page.get_by_text("Its status and progress are shown below.")).to_be_visible()
    status = page.locator('[data-progress="status"]')
    expect(status).to_have_text("Succeeded", timeout=20_000)
    expect(page.locator('[data-progress="text"]')).to_have_text("3 / 3 (100%)")
    screenshot(f"curation-import-run-{size}")
    assert Work.objects.filter(title__startswith="Offline widgets").count() == 3
    run = ImportRun.objects.get()
    assert Path(run.parameters["paths"][0]).parent == settings.IMPORT_UPLOAD_DIR
    assert csp_reports == []


def test_an_unreadable_file_is_refused_on_the_form(live_server, page, curator, tmp_path, settings):
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"
    notes = tmp_path / "notes.csv"
    notes.write_text("title,year\nWidgets,2020\n")
    log_in(page, live_server, "/admin/publications/importrun/new/")
    page.get_by_label("Recorded file").set_input_files(str(notes))
    page.get_by_role("button", name="Start the import").click()
    expect(page.locator(".errorlist")).to_contain_text(
        "not OpenAlex JSON, JSON Lines or an arXiv Atom"
    )
    assert not ImportRun.objects.exists()

"""In Chromium: a researcher signs up, confirms the email and claims a demo record with evidence;
staff approve it in the admin; the page shows the claim at L4; a second person's claim becomes a
dispute."""

import re

import pytest
from django.contrib.sites.models import Site
from django.core import mail
from django.core.management import call_command
from playwright.sync_api import expect

from catalogue.models import Author
from profiles.models import Claim
from tests.e2e.conftest import SCREENSHOTS
from tests.people import person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long and unusual passphrase 42"
STAFF_PASSWORD = "correct horse battery staple"  # UserFactory's password
EVIDENCE = (
    "I am Gennady Pekhimenko. The EcoSystem lab page at my university lists these papers, "
    "and my CV links to each of them."
)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def demo(settings, live_server):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # Mails link to the public site (SITE_URL), which for this test is the live server.
    settings.SITE_URL = live_server.url
    Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": "localhost", "name": "Scholar Pages"}
    )
    Site.objects.clear_cache()
    call_command("demo", verbosity=0)
    return Author.objects.get(openalex_id="A9000000001")


def confirmation_link(address: str) -> str:
    message = next(m for m in reversed(mail.outbox) if m.to == [address])
    return re.search(r"https?://\S+", message.body).group(0)


def claim_panel(page):
    return page.get_by_role("region", name="How to connect with this researcher")


def send_evidence(page, text: str, links: str = "") -> None:
    page.get_by_label("Your evidence").fill(text)
    if links:
        page.get_by_label("Links (optional)").fill(links)
    page.get_by_role("button", name="Send to staff").click()
    page.wait_for_url("**/claims/*/")


def test_claim_with_evidence_is_approved_by_staff_and_a_rival_claim_is_disputed(
    demo, live_server, page, browser, screenshot
):
    record = live_server.url + demo.get_absolute_url()
    page.set_viewport_size(DESKTOP)

    # An anonymous visitor is asked to log in, and comes back afterwards.
    page.goto(record)
    expect(claim_panel(page)).to_contain_text("Log in to claim")
    screenshot("claims-01-unclaimed-record")
    claim_panel(page).get_by_role("link", name="Log in to claim").click()
    page.wait_for_url(re.compile(r".*/accounts/login/\?next=/researchers/.*"))
    page.get_by_role("link", name="Create an account").click()

    # Sign up, then confirm the address from the mail outbox.
    page.get_by_label("Email").fill("gennady@example.org")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again)").fill(PASSWORD)
    screenshot("claims-02-sign-up")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/accounts/confirm-email/")
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    screenshot("claims-03-check-your-email")
    page.goto(confirmation_link("gennady@example.org"))
    expect(page.get_by_text("Confirm that gennady@example.org is your address.")).to_be_visible()
    screenshot("claims-04-confirm-email")
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_load_state()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()

    # Signed in, the record offers a claim; the claim page says which methods can work.
    page.goto(record)
    claim_panel(page).get_by_role("link", name="Claim this record").click()
    page.wait_for_url(f"**/researchers/{demo.pk}/claim/")
    methods = page.locator(".claim-method")
    expect(methods).to_have_count(3)
    expect(methods.nth(0)).to_contain_text("This record has no ORCID iD")
    # His institutions' domains are known; none of his confirmed addresses is at one.
    expect(methods.nth(1)).to_contain_text("None of your confirmed email addresses is at")
    expect(methods.nth(2)).to_contain_text("Can work")
    screenshot("claims-05-claim-page")

    # Too little evidence is explained, and what was typed stays.
    page.get_by_label("Your evidence").fill("It is me.")
    page.get_by_role("button", name="Send to staff").click()
    expect(page.get_by_role("alert")).to_contain_text("needs a correction")
    expect(page.get_by_label("Your evidence")).to_have_value("It is me.")
    screenshot("claims-06-evidence-too-short")

    send_evidence(page, EVIDENCE, "https://example.edu/~gennady\nhttps://example.edu/cv.pdf")
    expect(page.locator("#claim-status")).to_contain_text("Pending review")
    screenshot("claims-07-claim-pending")
    page.goto(record)
    expect(claim_panel(page)).to_contain_text("Your claim is pending review")
    screenshot("claims-08-record-with-pending-claim")
    claim = Claim.objects.get(user__email="gennady@example.org")

    # Staff review the evidence beside the record and the claimant, and approve it.
    person("curator", is_staff=True, is_superuser=True)
    staff_context = browser.new_context(viewport=DESKTOP)
    staff = staff_context.new_page()
    staff.goto(f"{live_server.url}/admin/login/?next=/admin/profiles/claim/")
    staff.get_by_label("Username").fill("curator")
    staff.get_by_label("Password").fill(STAFF_PASSWORD)
    staff.get_by_role("button", name="Log in").click()
    staff.wait_for_url("**/admin/profiles/claim/")
    screenshot_of(staff, "claims-09-admin-claim-list")
    staff.get_by_role("link", name="Gennady Pekhimenko").first.click()
    staff.wait_for_url(f"**/admin/profiles/claim/{claim.pk}/change/")
    review = staff.get_by_role("group", name="The claim, the record and the claimant side by side")
    expect(review).to_contain_text("EcoSystem lab page")
    expect(review).to_contain_text("https://example.edu/cv.pdf")
    expect(review).to_contain_text("gennady@example.org (confirmed)")
    expect(review).to_contain_text("claim_create")
    screenshot_of(staff, "claims-10-admin-review")
    staff.get_by_label("Note to the claimant (optional)").fill("Checked the lab page.")
    staff.get_by_role("button", name="Approve claim").click()
    expect(staff.locator(".messagelist .success")).to_contain_text("reviewed by staff, L4")
    expect(staff.locator("#claim-status")).to_have_text("Approved")
    screenshot_of(staff, "claims-11-admin-approved")

    # The record shows the claim and level 4, in the claim panel and in the trust snapshot.
    page.goto(record)
    expect(claim_panel(page)).to_contain_text("Claimed · reviewed by staff · L4")
    expect(claim_panel(page).get_by_role("link", name="Edit your profile")).to_be_visible()
    expect(page.get_by_role("region", name="Trust snapshot")).to_contain_text("Verification L4")
    screenshot("claims-12-claimed-at-l4")
    claim_panel(page).screenshot(path=str(SCREENSHOTS / "claims-12b-panel-at-l4.png"))
    page.set_viewport_size(PHONE)
    claim_panel(page).scroll_into_view_if_needed()
    screenshot("claims-13-claimed-at-l4-phone")
    claim_panel(page).screenshot(path=str(SCREENSHOTS / "claims-13b-panel-at-l4-phone.png"))

    # The owner edits the profile and takes a work that is not theirs off the record.
    page.set_viewport_size(DESKTOP)
    claim_panel(page).get_by_role("link", name="Edit your profile").click()
    page.wait_for_url(f"**/researchers/{demo.pk}/edit/")
    page.get_by_label("Tagline").fill("Systems for machine learning")
    page.get_by_label("Open to collaborate").check()
    page.get_by_role("button", name="Save profile").click()
    expect(page.locator(".flash")).to_contain_text("Your profile is saved.")
    expect(page.get_by_label("Tagline")).to_have_value("Systems for machine learning")
    page.get_by_role("button", name="Pin Moshpit SGD", exact=False).click()
    expect(page.locator(".pinned-list")).to_contain_text("Moshpit SGD")
    works = page.locator("#works .owner-work")
    before = works.count()
    last = works.nth(before - 1)
    last.locator("summary").click()
    last.get_by_role("button", name="Remove from my record").click()
    expect(page.locator(".flash")).to_contain_text("Later imports will not add it back")
    expect(works).to_have_count(before - 1)
    expect(page.get_by_role("region", name="Removed from your record")).to_contain_text("Put back")
    screenshot("claims-13c-owner-edit")

    # Someone else claims the same record: it becomes a dispute, and the holder keeps it.
    person("rival", email="rival@example.org")
    rival_context = browser.new_context(viewport=PHONE)
    rival = rival_context.new_page()
    rival.goto(record)
    expect(claim_panel(rival)).to_contain_text("Claimed · reviewed by staff · L4")
    expect(claim_panel(rival)).not_to_contain_text("gennady@example.org")
    rival.goto(f"{live_server.url}/accounts/login/?next={demo.get_absolute_url()}")
    rival.get_by_label("Email").fill("rival@example.org")
    rival.get_by_label("Password:", exact=True).fill(STAFF_PASSWORD)
    rival.get_by_role("button", name="Sign in").click()
    rival.wait_for_url(f"**{demo.get_absolute_url()}")
    claim_panel(rival).get_by_role("link", name="Dispute the claim").click()
    expect(rival.locator("#claim-contested")).to_contain_text("Someone else holds")
    screenshot_of(rival, "claims-14-rival-claim-page-phone")
    send_evidence(rival, "This record is mine: my name is on these papers as well, see my site.")
    expect(rival.locator("#claim-status")).to_contain_text("Disputed")
    screenshot_of(rival, "claims-15-rival-claim-disputed-phone")
    rival.goto(record)
    expect(claim_panel(rival)).to_contain_text("Your claim is disputed")
    screenshot_of(rival, "claims-16-rival-record-phone")

    statuses = dict(Claim.objects.filter(author=demo).values_list("user__email", "status"))
    assert statuses == {"gennady@example.org": "approved", "rival@example.org": "disputed"}
    staff.goto(f"{live_server.url}/admin/profiles/claim/")
    expect(staff.locator("#result_list tbody tr").first).to_contain_text("Disputed")
    staff.locator("#result_list tbody tr").first.get_by_role("link").first.click()
    expect(
        staff.get_by_role("group", name="The claim, the record and the claimant side by side")
    ).to_be_visible()
    expect(staff.locator(".curation-note")).to_contain_text("Disputed")
    expect(staff.locator("#claim-holder")).to_contain_text("gennady@example.org holds this record")
    screenshot_of(staff, "claims-17-admin-dispute")

    # The rival thinks better of it and withdraws; the holder is untouched.
    claim_panel(rival).get_by_role("link", name="See your claim").click()
    rival.get_by_text("Withdraw this claim").click()
    screenshot_of(rival, "claims-18-withdraw-confirm-phone")
    rival.get_by_role("button", name="Yes, withdraw my claim").click()
    expect(rival.locator("#claim-status")).to_contain_text("Withdrawn")
    screenshot_of(rival, "claims-19-withdrawn-phone")
    statuses = dict(Claim.objects.filter(author=demo).values_list("user__email", "status"))
    assert statuses == {"gennady@example.org": "approved", "rival@example.org": "withdrawn"}
    staff_context.close()
    rival_context.close()


def screenshot_of(page, name: str):
    """Like the ``screenshot`` fixture, for the pages of the other browser contexts."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

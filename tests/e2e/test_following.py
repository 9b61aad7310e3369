"""In Chromium, on the demo data: follow and unfollow change the count (with and without
JavaScript; a visitor signs in first and comes back), and an invitation between two claimed
researchers is sent, accepted and answered in the inbox."""

import re

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from catalogue.models import Author
from profiles.models import Claim, Follow, Invitation, Profile
from tests.e2e.conftest import SCREENSHOTS
from tests.people import PASSWORD, person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TOPIC = "Memory compression for training"
MESSAGE = (
    "Your work on compressing activations could pair well with our cluster scheduler. "
    "Would you like to try it on a shared benchmark?"
)


@pytest.fixture
def demo():
    call_command("demo", verbosity=0)
    return (
        Author.objects.get(openalex_id="A9000000001"),  # Gennady Pekhimenko
        Author.objects.get(openalex_id="A9000000002"),  # Amar Phanishayee
    )


def holds_record(user, author, *, open_to_collaborate: bool, reviewer) -> None:
    """``user`` holds ``author``: a claim staff approved, and the profile it opens."""
    Claim.objects.create(
        user=user,
        author=author,
        method=Claim.Method.EVIDENCE,
        evidence="My lab page lists these papers under my name.",
        status=Claim.Status.APPROVED,
        reviewer=reviewer,
        decided_at=timezone.now(),
    )
    Profile.objects.create(user=user, author=author, open_to_collaborate=open_to_collaborate)


def signed_in_page(browser, live_server, user, viewport=DESKTOP):
    """A new browser tab carrying a session of ``user``."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=viewport)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context.new_page()


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def actions_shot(page, name: str) -> None:
    """The follow, claim and collaboration panels alone, to read them at full size."""
    page.locator(".researcher-actions").screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def follow_box(page):
    return page.get_by_role("region", name="Decide how to stay connected")


def collaboration(page):
    return page.get_by_role("region", name="Open a focused conversation when the fit is right")


def test_follow_and_unfollow_change_the_count(demo, live_server, page, browser, screenshot):
    gennady, _ = demo
    record = live_server.url + gennady.get_absolute_url()
    person("reader", email="reader@example.org")
    page.set_viewport_size(DESKTOP)

    # A visitor presses Follow, signs in, and comes back to the same page.
    page.goto(record)
    expect(follow_box(page)).to_contain_text("0 followers")
    expect(collaboration(page)).to_contain_text("If you do not hold your own researcher record yet")
    screenshot("following-01-visitor")
    actions_shot(page, "following-01b-visitor-panels")
    follow_box(page).get_by_role("link", name="Follow researcher").click()
    page.wait_for_url(re.compile(r".*/accounts/login/\?next=/researchers/.*"))
    page.get_by_label("Email").fill("reader@example.org")
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    screenshot("following-02-sign-in")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{gennady.get_absolute_url()}")

    # Signed in, Follow works in place (htmx) and the count goes up.
    follow_box(page).get_by_role("button", name="Follow researcher").click()
    expect(follow_box(page)).to_contain_text("1 follower")
    expect(follow_box(page).get_by_role("button", name="Unfollow")).to_be_visible()
    assert Follow.objects.filter(user__username="reader", author=gennady).exists()
    screenshot("following-03-followed")
    actions_shot(page, "following-03b-followed-panels")
    page.reload()
    expect(follow_box(page)).to_contain_text("1 follower")
    expect(page.locator(f"#followers-stat-{gennady.pk}")).to_have_text("follower1")
    page.set_viewport_size(PHONE)
    follow_box(page).scroll_into_view_if_needed()
    screenshot("following-04-followed-phone")
    follow_box(page).screenshot(path=str(SCREENSHOTS / "following-04b-button-phone.png"))
    page.set_viewport_size(DESKTOP)

    # The following page lists the researcher; unfollowing brings the count back down.
    page.get_by_role("navigation", name="Account").get_by_role("link", name="Following").click()
    page.wait_for_url("**/following/")
    expect(page.get_by_role("region", name=re.compile(r"^Researchers you follow"))).to_contain_text(
        "Gennady Pekhimenko"
    )
    screenshot("following-05-following-page")
    page.locator(".social-aside").screenshot(path=str(SCREENSHOTS / "following-05b-aside.png"))
    page.set_viewport_size(PHONE)
    screenshot("following-05c-following-page-phone")
    page.set_viewport_size(DESKTOP)
    page.goto(record)
    follow_box(page).get_by_role("button", name="Unfollow").click()
    expect(follow_box(page)).to_contain_text("0 followers")
    expect(follow_box(page).get_by_role("button", name="Follow researcher")).to_be_visible()
    assert not Follow.objects.filter(author=gennady).exists()
    screenshot("following-06-unfollowed")

    # Without JavaScript the same button is a plain form that reloads the page.
    reader = Follow._meta.get_field("user").related_model.objects.get(username="reader")
    no_js = browser.new_context(viewport=PHONE, java_script_enabled=False)
    client = Client()
    client.force_login(reader)
    no_js.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    plain = no_js.new_page()
    plain.goto(record)
    follow_box(plain).get_by_role("button", name="Follow researcher").click()
    plain.wait_for_load_state()
    expect(follow_box(plain)).to_contain_text("1 follower")
    assert plain.url == record
    shot(plain, "following-07-followed-without-javascript-phone")
    follow_box(plain).get_by_role("button", name="Unfollow").click()
    plain.wait_for_load_state()
    expect(follow_box(plain)).to_contain_text("0 followers")
    no_js.close()


def test_an_invitation_is_sent_accepted_and_answered(demo, live_server, browser):
    gennady, amar = demo
    recipient = person("gennady", email="gennady.private@example.net")
    sender = person("amar", email="amar.private@example.net")
    curator = person("curator", is_staff=True)
    holds_record(recipient, gennady, open_to_collaborate=True, reviewer=curator)
    holds_record(sender, amar, open_to_collaborate=False, reviewer=curator)
    record = live_server.url + gennady.get_absolute_url()

    # Amar, who holds his own record, invites Gennady from Gennady's page.
    amar_page = signed_in_page(browser, live_server, sender)
    amar_page.goto(record)
    panel = collaboration(amar_page)
    expect(panel).to_contain_text("Gennady Pekhimenko is open to collaborate")
    expect(amar_page.locator(".badge-open")).to_have_text("Open to collaborate")
    shot(amar_page, "collaboration-01-invite-form")
    actions_shot(amar_page, "collaboration-01b-invite-form-panels")
    panel.get_by_label("Topic").fill(TOPIC)
    panel.get_by_label("Message").fill("Hello")
    panel.get_by_role("button", name="Send invitation").click()
    expect(panel.get_by_role("alert")).to_contain_text("needs a correction")
    expect(panel).to_contain_text("at least 20 characters")
    expect(panel.get_by_label("Topic")).to_have_value(TOPIC)
    shot(amar_page, "collaboration-02-invite-error")
    actions_shot(amar_page, "collaboration-02b-invite-error-panels")
    panel.get_by_label("Message").fill(MESSAGE)
    panel.get_by_role("button", name="Send invitation").click()
    expect(panel).to_contain_text("Invitation sent to Gennady Pekhimenko")
    expect(panel).to_contain_text("Your invitation is waiting for Gennady Pekhimenko's answer")
    shot(amar_page, "collaboration-03-invitation-sent")
    actions_shot(amar_page, "collaboration-03b-invitation-sent-panels")
    invitation = Invitation.objects.get(sender=sender)
    assert (invitation.sender, invitation.status) == (sender, "pending")

    # Gennady sees it in his inbox (the count in the header), reads it and accepts.
    gennady_page = signed_in_page(browser, live_server, recipient)
    gennady_page.goto(record)
    nav = gennady_page.get_by_role("navigation", name="Account")
    expect(nav.get_by_role("link", name=re.compile(r"^Inbox\W+1 unread$"))).to_be_visible()
    expect(collaboration(gennady_page)).to_contain_text("1 invitation waiting for your answer")
    nav.get_by_role("link", name=re.compile("Inbox")).click()
    gennady_page.wait_for_url("**/inbox/")
    received = gennady_page.get_by_role("region", name=re.compile("Waiting for your answer"))
    expect(received).to_contain_text("Amar Phanishayee")
    expect(received).to_contain_text(TOPIC)
    shot(gennady_page, "collaboration-04-inbox-received")
    received.get_by_role("link", name=re.compile("Read and answer")).click()
    gennady_page.wait_for_url(f"**/inbox/{invitation.pk}/")
    expect(gennady_page.locator("#invitation-status")).to_have_text("Waiting for your answer")
    expect(gennady_page.locator(".message-list")).to_contain_text("compressing activations")
    shot(gennady_page, "collaboration-05-invitation")
    gennady_page.get_by_label("Reply (optional)").fill("Yes, gladly. Which benchmark?")
    gennady_page.get_by_role("button", name="Accept").click()
    gennady_page.wait_for_url(f"**/inbox/{invitation.pk}/")
    expect(gennady_page.locator(".flash")).to_contain_text("Invitation accepted")
    expect(gennady_page.locator("#invitation-status")).to_contain_text("Accepted")
    expect(gennady_page.locator(".message-list")).to_contain_text("Which benchmark?")
    shot(gennady_page, "collaboration-06-accepted")

    # Amar hears of it, opens the conversation and answers.
    amar_page.goto(f"{live_server.url}/inbox/")
    expect(amar_page.get_by_role("region", name="Notifications")).to_contain_text(
        "Gennady Pekhimenko accepted your invitation"
    )
    conversations = amar_page.get_by_role("region", name=re.compile("Conversations"))
    expect(conversations).to_contain_text("1 unread")
    shot(amar_page, "collaboration-07-sender-inbox")
    conversations.get_by_role("link", name=TOPIC).click()
    amar_page.wait_for_url(f"**/inbox/{invitation.pk}/")
    amar_page.get_by_label("Your message").fill("The training throughput suite: I will send it.")
    amar_page.get_by_role("button", name="Send message").click()
    amar_page.wait_for_url(re.compile(rf".*/inbox/{invitation.pk}/#latest"))
    expect(amar_page.locator(".message-list .message")).to_have_count(3)
    expect(amar_page.locator("#latest")).to_contain_text("training throughput suite")
    shot(amar_page, "collaboration-08-answered")
    senders = invitation.messages.values_list("sender__username", flat=True)
    assert list(senders) == ["gennady", "amar"]

    # Gennady has one unread message; on a phone the conversation reads top to bottom.
    gennady_page.set_viewport_size(PHONE)
    gennady_page.goto(f"{live_server.url}/inbox/")
    expect(gennady_page.get_by_role("region", name=re.compile("Conversations"))).to_contain_text(
        "1 unread"
    )
    shot(gennady_page, "collaboration-09-inbox-phone")
    gennady_page.get_by_role("link", name=TOPIC).click()
    expect(gennady_page.locator("#latest")).to_contain_text("training throughput suite")
    shot(gennady_page, "collaboration-10-conversation-phone")
    for tab in (amar_page, gennady_page):
        assert "private@example.net" not in tab.content()
    amar_page.set_viewport_size(PHONE)
    amar_page.goto(record)
    collaboration(amar_page).scroll_into_view_if_needed()
    shot(amar_page, "collaboration-11-record-after-accept-phone")
    actions_shot(amar_page, "collaboration-11b-panels-after-accept-phone")
    expect(collaboration(amar_page)).to_contain_text("accepted your invitation")
    amar_page.context.close()
    gennady_page.context.close()

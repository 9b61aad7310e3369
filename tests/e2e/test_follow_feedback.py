"""In Chromium: the follow box answers every click. A follow refused by the rate limit says
so in the box, with the wait in words; an accepted one also moves the "At a glance" figure."""

import pytest
from django.test import Client
from playwright.sync_api import expect

from catalogue.metrics import author_metrics_refresh
from profiles.following import services as following
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.people import person

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def author():
    author = AuthorFactory(display_name="Lise Meitner")
    AuthorshipFactory(
        work=WorkFactory(title="Disintegration of uranium by neutrons"), author=author
    )
    author_metrics_refresh(author_ids=[author.pk])
    return author


def signed_in_page(browser, live_server, user):
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    cookie = client.cookies["sessionid"].value
    context.add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
    return context.new_page()


def test_follow_moves_the_glance_figure_and_a_refusal_is_told(
    live_server, browser, author, monkeypatch
):
    monkeypatch.setattr(following, "FOLLOW_RATE", "1/m")
    page = signed_in_page(browser, live_server, person("reader"))
    page.goto(f"{live_server.url}{author.get_absolute_url()}")
    figure = page.locator(f"#followers-stat-{author.pk}")
    expect(figure).to_have_text("followers0")

    page.get_by_role("button", name="Follow researcher").click()
    expect(page.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(figure).to_have_text("follower1")

    page.get_by_role("button", name="Unfollow").click()  # over the limit: refused
    alert = page.locator(f"#follow-box-{author.pk} [role=alert]")
    expect(alert).to_have_text(
        "Too many requests in a short while: nothing was changed. Try again in a minute."
    )
    expect(page.get_by_role("button", name="Unfollow")).to_be_visible()  # still following
    expect(figure).to_have_text("follower1")

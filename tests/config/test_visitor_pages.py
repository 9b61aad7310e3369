"""What a visitor meets first: pinned works, the status page, compression, small links."""

from __future__ import annotations

import gzip
import re

import pytest
from django.test import Client
from django.urls import reverse

from profiles.claims import ownership
from profiles.models import Profile
from tests.factories import AuthorshipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def held_record():
    """An author with five works, three of them dated, held by a member."""
    first = AuthorshipFactory(work__title="Alpha paper", work__publication_year=2019)
    author = first.author
    for title, year in (("Beta paper", 2020), ("Gamma paper", 2021), ("Delta paper", 2022)):
        AuthorshipFactory(author=author, work__title=title, work__publication_year=year)
    AuthorshipFactory(author=author, work__title="Epsilon paper", work__publication_year=2023)
    member = UserFactory()
    profile = Profile.objects.create(user=member, author=author)
    return author, profile, member


def titles(html: str) -> list[str]:
    return re.findall(r'<h3 class="work-title"[^>]*><a [^>]*>([^<]+)</a>', html)


def work(author, title):
    return author.authorships.get(work__title=title).work


def test_pinned_works_lead_the_list_in_pin_order_marked_as_pinned(held_record):
    author, profile, member = held_record
    for title in ("Beta paper", "Alpha paper"):
        ownership.work_pin(profile=profile, work=work(author, title), actor=member)
    html = Client().get(author.get_absolute_url()).content.decode()
    listed = titles(html)
    assert listed[:2] == ["Beta paper", "Alpha paper"]
    assert sorted(listed) == sorted(set(listed))  # each work once
    assert len(listed) == 5
    assert html.count('class="tag tag-pinned"') == 2
    pinned_articles = re.findall(r'<article class="work-item is-pinned"[^>]*>', html)
    assert len(pinned_articles) == 2
    assert "5 published items" in html


def test_a_pinned_work_outside_the_filters_or_hidden_is_not_shown(held_record):
    author, profile, member = held_record
    ownership.work_pin(profile=profile, work=work(author, "Alpha paper"), actor=member)
    ownership.work_pin(profile=profile, work=work(author, "Delta paper"), actor=member)
    html = Client().get(author.get_absolute_url() + "?year_from=2021").content.decode()
    listed = titles(html)
    assert listed[0] == "Delta paper"
    assert "Alpha paper" not in listed
    assert html.count('class="tag tag-pinned"') == 1


def test_pins_lead_only_the_first_page(held_record, settings, monkeypatch):
    from pages import researcher_page as selectors

    author, profile, member = held_record
    monkeypatch.setattr(selectors, "WORKS_PER_PAGE", 2)
    ownership.work_pin(profile=profile, work=work(author, "Alpha paper"), actor=member)
    pages = [
        titles(Client().get(author.get_absolute_url() + f"?page={n}").content.decode())
        for n in (1, 2)
    ]
    assert pages[0][0] == "Alpha paper"
    everything = [title for page in pages for title in page]
    assert sorted(everything) == sorted(
        ["Alpha paper", "Beta paper", "Gamma paper", "Delta paper", "Epsilon paper"]
    )


def test_status_is_a_page_for_people_and_healthz_stays_json(client):
    home = client.get("/").content.decode()
    assert f'href="{reverse("status")}">Status</a>' in home
    page = client.get(reverse("status"))
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert "Everything is working" in html and "Records" in html
    assert client.get("/healthz")["Content-Type"] == "application/json"


def test_status_page_says_which_part_is_down(client, monkeypatch):
    from config import views

    def broken():
        raise RuntimeError("connection refused")

    monkeypatch.setitem(views.CHECKS, "cache", broken)
    page = client.get(reverse("status"))
    assert page.status_code == 503
    html = page.content.decode()
    assert "Some parts of the site are down" in html
    assert re.search(r"Cache</span>\s*<span class=\"status-state\">Down", html)


def test_log_in_to_claim_comes_back_to_the_claim_form(held_record):
    author = AuthorshipFactory().author  # unclaimed
    html = Client().get(author.get_absolute_url()).content.decode()
    claim = reverse("profiles:claim", args=[author.pk])
    assert f'href="{reverse("account_login")}?next={claim}">Log in to claim' in html


def test_the_sign_in_page_offers_password_reset_once(client):
    html = client.get(reverse("account_login")).content.decode()
    assert html.count("Forgot your password?") == 1


def test_every_search_landmark_has_a_name(client):
    for url in (
        reverse("publications:search") + "?q=paper",
        reverse("publications:search"),
        "/no/such/page/",
    ):
        html = client.get(url).content.decode()
        forms = re.findall(r"<form[^>]*role=\"search\"[^>]*>", html)
        assert forms, url
        names = [re.search(r'aria-label="([^"]+)"', form) for form in forms]
        assert all(names), (url, forms)
        assert len({name.group(1) for name in names}) == len(names), url


def test_htmx_and_the_graph_stylesheet_load_only_where_used(held_record):
    author, _, _ = held_record
    client = Client()
    home = client.get("/").content.decode()
    assert "htmx" not in home and "graph.css" not in home
    assert home.count('rel="stylesheet"') == 1
    page = client.get(author.get_absolute_url()).content.decode()
    assert "htmx" in page and "graph.css" in page
    assert page.count('rel="stylesheet"') == 2
    assert " hx-" not in page  # data-hx-* only, as HTML allows
    assert page.count("favicon.svg") == 1


def test_pages_without_secrets_are_compressed_and_pages_with_them_are_not(held_record):
    author, _, member = held_record
    anonymous = Client(headers={"accept-encoding": "gzip, br"})
    page = anonymous.get(author.get_absolute_url())
    assert page["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in page["Vary"]
    assert author.display_name in gzip.decompress(page.content).decode()
    # The sign-in form carries a CSRF token: left as it is.
    sign_in = anonymous.get(reverse("account_login"))
    assert sign_in.status_code == 200 and not sign_in.has_header("Content-Encoding")
    # A signed-in member's pages (the sign-out form's token, their own data): not compressed.
    signed_in = Client(headers={"accept-encoding": "gzip"})
    signed_in.force_login(member)
    mine = signed_in.get(author.get_absolute_url())
    assert mine.status_code == 200 and not mine.has_header("Content-Encoding")

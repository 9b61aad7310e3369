"""A member (or any visitor with a cookie) at a page nobody asked for lately is served
the page kept whole for visitors without a cookie, with their own parts in the places
that visitor's parts took (``pages.slots``, ``researcher_pages.kept_for_anyone``)."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pages import researcher_pages, slots
from pages.models import ResearcherPage
from profiles.following.services import follow_create
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]


@pytest.fixture
def author(meitner):
    """The researcher these tests show (``conftest.meitner``)."""
    return meitner


TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')


def member_page(client, author) -> tuple[str, list[str]]:
    """The page as the member meets it with no shared page in the cache, and its queries."""
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    return TOKEN.sub(r"\1…", response.content.decode()), [q["sql"] for q in queries]


def signed_in(user=None) -> Client:
    client = Client()
    client.force_login(user or UserFactory())
    return client


def test_a_member_is_served_the_kept_page_with_their_own_panels(author):
    user = UserFactory()
    follow_create(user=user, author=author)
    member = signed_in(user)
    drawn, _ = member_page(member, author)  # no page kept whole yet: drawn
    cache.clear()
    anonymous = Client().get(author.get_absolute_url()).content.decode()  # kept whole
    assert ResearcherPage.objects.filter(author=author).exists()
    served, queries = member_page(member, author)
    assert served == drawn
    assert "Unfollow" in served and "Sign out" in served
    assert "Unfollow" not in anonymous and "Sign out" not in anonymous
    read = " ".join(queries)
    assert "pages_researcherpage" in read
    assert "publications_work" not in read and "pages_researcherworks" not in read


def test_each_member_sees_only_their_own_parts(author):
    Client().get(author.get_absolute_url())  # kept whole
    follower, stranger = UserFactory(), UserFactory()
    follow_create(user=follower, author=author)
    assert "Unfollow" in member_page(signed_in(follower), author)[0]
    assert "Unfollow" not in member_page(signed_in(stranger), author)[0]


def test_a_member_meets_a_change_at_once(author):
    Client().get(author.get_absolute_url())
    work = author.authorships.order_by("work__publication_year").first().work
    work.title = "Fission, revised"
    work.save()
    served, _ = member_page(signed_in(), author)
    assert "Fission, revised" in served and "Fission, part 0" not in served


def test_a_kept_page_without_its_slots_is_not_served(author):
    Client().get(author.get_absolute_url())
    ResearcherPage.objects.update(slots="", html="<p>stale</p>")
    served, _ = member_page(signed_in(), author)
    assert "stale" not in served and "Fission, part 2" in served


def test_a_page_kept_whole_says_where_its_parts_landed(author):
    anonymous = Client().get(author.get_absolute_url()).content.decode()
    row = ResearcherPage.objects.get(author=author, generation=researcher_pages.generation())
    spans = slots.spans_read(row.slots)
    assert {span.name for span in spans} == {"account", "messages", "actions"}
    account = next(span for span in spans if span.name == "account")
    assert "Sign in" in anonymous[account.start : account.end]


def test_filling_again_puts_other_parts_where_the_first_ones_landed():
    stand_ins = slots.Slots()
    body = f"<h1>{stand_ins['a']}</h1><p>{stand_ins['b']}</p>{stand_ins['a']}{stand_ins['c']}"
    first, spans = slots.fill_noting(body, stand_ins.nonce, {"a": "AA", "b": "", "c": "ccc"})
    assert first == "<h1>AA</h1><p></p>AAccc"
    again = slots.refill(
        first, slots.spans_read(slots.spans_text(spans)), {"a": "x", "b": "yy", "c": ""}
    )
    assert again == slots.fill(body, stand_ins.nonce, {"a": "x", "b": "yy", "c": ""})
    assert again == "<h1>x</h1><p>yy</p>x"


def test_a_slot_without_a_part_is_left_and_another_pages_slots_are_not_filled():
    mine, other = slots.Slots(), slots.Slots()
    body = f"{mine['a']}{mine['b']}{other['a']}"
    filled, spans = slots.fill_noting(body, mine.nonce, {"a": "A"})
    assert filled == f"A{mine['b']}{other['a']}"
    assert spans == [slots.Span("a", 0, 1)]

"""Following researchers: the button, the services, the following page and notifications."""

from datetime import timedelta

import pytest
from django.db import connection
from django.template.loader import get_template
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorMetrics
from catalogue.signals import authors_changed, metrics_refreshed
from profiles.collaboration import selectors as collab_selectors
from profiles.following import services as following
from profiles.following.services import FollowError
from profiles.models import Claim, Follow, Notification, Preferences
from profiles.signals import claim_changed, follow_changed
from tests.factories import AuthorFactory
from tests.people import ORCIDS, holds, person, researcher, work_of

pytestmark = pytest.mark.django_db


def follow_url(author):
    return reverse("profiles:follow", args=[author.pk])


def unfollow_url(author):
    return reverse("profiles:unfollow", args=[author.pk])


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# Services -----------------------------------------------------------------------------


def test_following_twice_keeps_one_follow_and_counts_once(author, stranger):
    author_metrics_refresh(author_ids=[author.pk])
    first, created = following.follow_create(user=stranger, author=author)
    again, created_again = following.follow_create(user=stranger, author=author)
    assert (created, created_again) == (True, False)
    assert first.pk == again.pk
    assert following.follow_state(author=author, user=stranger) == following.FollowState(1, True)
    assert AuthorMetrics.objects.get(author=author).followers_count == 1


def test_unfollowing_is_idempotent_and_keeps_the_metrics_count_in_step(author, follower):
    author_metrics_refresh(author_ids=[author.pk])
    assert AuthorMetrics.objects.get(author=author).followers_count == 1
    assert following.follow_delete(user=follower, author=author) is True
    assert following.follow_delete(user=follower, author=author) is False
    assert not Follow.objects.filter(author=author).exists()
    assert AuthorMetrics.objects.get(author=author).followers_count == 0


def test_follow_changed_is_sent_after_commit_only_when_something_changed(
    author, stranger, django_capture_on_commit_callbacks
):
    heard = []

    def listener(sender, author_id, **kwargs):
        heard.append(author_id)

    follow_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            following.follow_create(user=stranger, author=author)
            following.follow_create(user=stranger, author=author)
            assert heard == []  # not before the commit
        assert heard == [author.pk]  # once: the second follow changed nothing
        with django_capture_on_commit_callbacks(execute=True):
            following.follow_delete(user=stranger, author=author)
            following.follow_delete(user=stranger, author=author)
    finally:
        follow_changed.disconnect(listener)
    assert heard == [author.pk, author.pk]


def test_owner_cannot_follow_their_own_record(author, owner):
    with pytest.raises(FollowError, match="your own record"):
        following.follow_create(user=owner, author=author)


def test_a_merged_record_cannot_be_followed(stranger):
    kept = AuthorFactory()
    merged = AuthorFactory(merged_into=kept)
    with pytest.raises(FollowError, match="merged"):
        following.follow_create(user=stranger, author=merged)


# The follow button --------------------------------------------------------------------


def test_visitor_sees_a_sign_in_link_that_comes_back_to_the_page(client, author):
    page = client.get(author.get_absolute_url() + "?sort=cited")
    html = page.content.decode()
    assert "Follow researcher" in html
    assert 'href="/accounts/login/?next=/researchers/' in html
    assert "%3Fsort%3Dcited" in html  # the query string survives the round trip


def test_visitor_posting_follow_is_sent_to_sign_in_and_back(client, author):
    back = author.get_absolute_url()
    response = client.post(follow_url(author), {"next": back})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login") + "?next=")
    assert back.replace("/", "%2F") in response["Location"]
    assert not Follow.objects.exists()
    htmx = client.post(follow_url(author), {"next": back}, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 200
    assert htmx["HX-Redirect"].startswith(reverse("account_login"))


def test_plain_form_follow_and_unfollow_change_the_count_on_the_page(author, stranger):
    client = signed_in(stranger)
    page = author.get_absolute_url()
    assert "0 followers" in client.get(page).content.decode()
    response = client.post(follow_url(author), {"next": page})
    assert response.status_code == 302 and response["Location"] == page
    html = client.get(page).content.decode()
    assert "1 follower<" in html and "Unfollow" in html
    client.post(unfollow_url(author), {"next": page})
    html = client.get(page).content.decode()
    assert "0 followers" in html and "Follow researcher" in html


def test_htmx_follow_answers_with_the_new_button(author, stranger):
    client = signed_in(stranger)
    response = client.post(
        follow_url(author), {"next": author.get_absolute_url()}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.strip().startswith('<div class="follow-box"')
    assert "Unfollow" in html and "1 follower" in html
    assert 'name="csrfmiddlewaretoken"' in html
    response = client.post(unfollow_url(author), HTTP_HX_REQUEST="true")
    assert "Follow researcher" in response.content.decode()


def test_a_next_address_on_another_site_is_ignored(author, stranger):
    response = signed_in(stranger).post(follow_url(author), {"next": "https://evil.example/"})
    assert response["Location"] == author.get_absolute_url()


def test_follow_needs_a_post(author, stranger):
    assert signed_in(stranger).get(follow_url(author)).status_code == 405


def test_follow_forms_need_the_csrf_token(author, stranger):
    client = Client(enforce_csrf_checks=True)
    client.force_login(stranger)
    assert client.post(follow_url(author)).status_code == 403
    assert client.post(reverse("profiles:digest_preferences")).status_code == 403
    assert not Follow.objects.exists()


def test_follow_is_rate_limited_with_a_429_page(author, stranger, monkeypatch):
    monkeypatch.setattr(following, "FOLLOW_RATE", "3/m")
    client = signed_in(stranger)
    for url in (follow_url(author), unfollow_url(author), follow_url(author)):
        assert client.post(url).status_code == 302
    response = client.post(unfollow_url(author))
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60  # what is left of the limit's minute
    assert "Too many requests" in response.content.decode()
    assert Follow.objects.filter(user=stranger).count() == 1  # the refused unfollow did nothing


def test_owner_sees_their_follower_count_without_a_button(author, owner, follower):
    html = signed_in(owner).get(author.get_absolute_url()).content.decode()
    assert ">1</span> person follows your record." in html
    assert "Follow researcher" not in html


def test_the_owner_line_counts_people_in_good_grammar(author, owner, follower):
    client = signed_in(owner)
    following.follow_create(user=person("second"), author=author)
    html = client.get(author.get_absolute_url()).content.decode()
    assert ">2</span> people follow your record." in html
    Follow.objects.filter(author=author).delete()
    html = client.get(author.get_absolute_url()).content.decode()
    assert "No one</span> follows your record yet." in html
    assert "follower follow" not in html and "followers follow" not in html


def test_at_a_glance_labels_agree_with_their_numbers(author, follower):
    author_metrics_refresh(author_ids=[author.pk])
    AuthorMetrics.objects.filter(author=author).update(works_count=1, topics_count=1)
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=[author.pk])  # as its writers do
    html = Client().get(author.get_absolute_url()).content.decode()
    assert "<dt>follower</dt><dd>1</dd>" in html
    assert "<dt>work</dt><dd>1</dd>" in html
    assert "<dt>topic</dt><dd>1</dd>" in html
    AuthorMetrics.objects.filter(author=author).update(works_count=3, topics_count=0)
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=[author.pk])
    html = Client().get(author.get_absolute_url()).content.decode()
    assert "<dt>works</dt><dd>3</dd>" in html and "<dt>topics</dt><dd>0</dd>" in html


def test_htmx_follow_sends_the_at_a_glance_figure_along(author, stranger):
    author_metrics_refresh(author_ids=[author.pk])
    client = signed_in(stranger)
    html = client.post(follow_url(author), HTTP_HX_REQUEST="true").content.decode()
    figure = f'<div class="stat" id="followers-stat-{author.pk}" data-hx-swap-oob="true">'
    assert figure + "<dt>follower</dt><dd>1</dd></div>" in html
    html = client.post(unfollow_url(author), HTTP_HX_REQUEST="true").content.decode()
    assert figure + "<dt>followers</dt><dd>0</dd></div>" in html
    page = client.get(author.get_absolute_url()).content.decode()
    assert f'id="followers-stat-{author.pk}"' in page  # the element the figure replaces
    assert "data-hx-swap-oob" not in page  # the page itself sends nothing out of band


def test_a_rate_limited_htmx_follow_answers_words_for_the_follow_box(author, stranger, monkeypatch):
    monkeypatch.setattr(following, "FOLLOW_RATE", "1/m")
    client = signed_in(stranger)
    assert client.post(follow_url(author), HTTP_HX_REQUEST="true").status_code == 200
    response = client.post(unfollow_url(author), HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert text.startswith("Too many requests") and "nothing was changed" in text
    assert "Try again in a minute." in text  # the wait, in words
    assert "<html" not in text  # no whole page to lose inside the box
    assert Follow.objects.filter(user=stranger).exists()


# Permissions: who may follow and unfollow ----------------------------------------------


@pytest.mark.parametrize(
    ("who", "status", "follows"),
    [("stranger", 302, 2), ("follower", 302, 1), ("owner", 302, 1), ("staff", 302, 2)],
)
def test_who_may_follow(request, author, follower, who, status, follows):
    user = request.getfixturevalue(who)
    response = signed_in(user).post(follow_url(author))
    assert response.status_code == status
    assert Follow.objects.filter(author=author).count() == follows
    if who == "owner":
        assert not Follow.objects.filter(user=user).exists()


@pytest.mark.parametrize("who", ["stranger", "owner", "staff"])
def test_nobody_can_remove_someone_elses_follow(request, author, follower, who):
    signed_in(request.getfixturevalue(who)).post(unfollow_url(author))
    assert Follow.objects.filter(user=follower, author=author).exists()


def test_follower_can_unfollow(author, follower):
    signed_in(follower).post(unfollow_url(author))
    assert not Follow.objects.filter(user=follower).exists()


# Query budget on the researcher page -----------------------------------------------------


def _render_section(author, user) -> tuple[str, int]:
    """The follow box and the collaboration panel, from their states to their HTML."""
    from catalogue.models import Author

    author = Author.objects.select_related("profile", "metrics").get(pk=author.pk)
    with CaptureQueriesContext(connection) as queries:
        follow = following.follow_state(author=author, user=user)
        panel = collab_selectors.collaboration_panel_state(author=author, user=user)
        html = get_template("profiles/_follow.html").render(
            {"author": author, "state": follow, "next": "/", "user": user}
        ) + get_template("profiles/_collaboration_panel.html").render(
            {"author": author, "panel": panel, "user": user}
        )
    return html, len(queries)


@pytest.mark.parametrize("viewer", ["visitor", "stranger", "follower", "owner", "claimed"])
def test_follow_button_and_collaboration_panel_take_at_most_three_queries(
    request, author, owner, follower, viewer
):
    from django.contrib.auth.models import AnonymousUser

    from profiles.models import Profile

    Profile.objects.filter(user=owner).update(open_to_collaborate=True)
    if viewer == "visitor":
        user = AnonymousUser()
    elif viewer == "claimed":
        user = researcher("ada", "Ada Lovelace", orcid=ORCIDS[0])
    else:
        user = request.getfixturevalue(viewer)
    html, count = _render_section(author, user)
    assert count <= 3, f"{viewer}: {count} queries"
    assert "follower" in html


# The following page ---------------------------------------------------------------------


def test_following_page_shows_new_works_since_the_last_visit(author, stranger):
    work_of(author, title="Old and already known", days_ago=30)
    following.follow_create(user=stranger, author=author)
    Follow.objects.filter(user=stranger).update(created_at=timezone.now() - timedelta(days=10))
    work_of(author, title="Fresh results on compilers", days_ago=2)
    client = signed_in(stranger)
    first = client.get(reverse("profiles:following"))
    html = first.content.decode()
    assert first.status_code == 200
    new_section = html.split('id="new-works"')[1].split("</section>")[0]
    assert "Fresh results on compilers" in new_section
    assert "Old and already known" not in new_section  # stored before the follow
    assert "Old and already known" in html  # still among the recent works
    assert 'id="new-count">1<' in html
    second = client.get(reverse("profiles:following")).content.decode()
    assert 'id="new-count">0<' in second
    assert "Nothing new since your last visit" in second
    work_of(author, title="Another one arrives")
    third = client.get(reverse("profiles:following")).content.decode()
    assert "Another one arrives" in third.split('id="new-works"')[1].split("</section>")[0]


def test_following_page_lists_only_my_follows(author, follower, stranger):
    other = AuthorFactory(display_name="Someone Else")
    following.follow_create(user=stranger, author=other)
    html = signed_in(stranger).get(reverse("profiles:following")).content.decode()
    assert "Someone Else" in html
    assert "Grace Hopper" not in html


def test_following_page_needs_sign_in(client):
    response = client.get(reverse("profiles:following"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_following_page_with_no_follows_says_how_to_start(stranger):
    html = signed_in(stranger).get(reverse("profiles:following")).content.decode()
    assert "You do not follow anyone yet" in html


def test_digest_opt_in_and_out(stranger):
    client = signed_in(stranger)
    client.post(reverse("profiles:digest_preferences"), {"email_digest": "on"})
    preferences = Preferences.objects.get(user=stranger)
    assert preferences.email_digest is True
    assert preferences.digest_since is not None  # the first digest starts from now
    assert preferences.digest_sent_at is None  # and goes at the next scheduled time
    assert "checked" in client.get(reverse("profiles:following")).content.decode()
    client.post(reverse("profiles:digest_preferences"), {})
    assert Preferences.objects.get(user=stranger).email_digest is False


def test_opening_the_digest_address_leads_to_its_form(stranger):
    client = signed_in(stranger)
    response = client.get(reverse("profiles:digest_preferences"))
    assert response.status_code == 302
    assert response["Location"] == reverse("profiles:following") + "#digest-title"
    assert 'id="digest-title"' in client.get(response["Location"]).content.decode()
    assert not Preferences.objects.filter(user=stranger, email_digest=True).exists()
    visitor = Client().get(reverse("profiles:digest_preferences"))
    assert visitor.status_code == 302 and reverse("account_login") in visitor["Location"]


# Notifications ----------------------------------------------------------------------------


def test_new_works_after_an_import_batch_notify_followers_once(
    author, follower, stranger, django_capture_on_commit_callbacks
):
    Follow.objects.filter(user=follower).update(created_at=timezone.now() - timedelta(days=3))
    work_of(author, title="Before the follow", days_ago=5)
    new = work_of(author, title="After the follow", days_ago=1)
    for _ in range(2):  # a second batch touching the same author announces nothing again
        authors_changed.send(sender=None, author_ids=[author.pk])
    notes = list(Notification.objects.filter(kind=Notification.Kind.NEW_WORK))
    assert [(n.user_id, n.work_id) for n in notes] == [(follower.pk, new.pk)]
    assert "After the follow" in notes[0].text
    assert not Notification.objects.filter(user=stranger).exists()


def test_claiming_a_record_notifies_its_followers_but_not_the_claimant(
    follower, stranger, django_capture_on_commit_callbacks
):
    author = AuthorFactory(display_name="Katherine Johnson", orcid=ORCIDS[1])
    Follow.objects.create(user=follower, author=author)
    claimant = person("katherine")
    with django_capture_on_commit_callbacks(execute=True):
        Follow.objects.create(user=claimant, author=author)
        holds(claimant, author)
    note = Notification.objects.get(kind=Notification.Kind.CLAIMED)
    assert note.user == follower and note.author == author
    assert "Katherine Johnson claimed their record" in note.text
    claim_changed.send(sender=Claim, author_id=author.pk)  # heard again: nothing new
    assert Notification.objects.filter(kind=Notification.Kind.CLAIMED).count() == 1


def test_a_pending_claim_notifies_nobody(follower, django_capture_on_commit_callbacks):
    author = AuthorFactory()
    Follow.objects.create(user=follower, author=author)
    claim_changed.send(sender=Claim, author_id=author.pk)
    assert not Notification.objects.exists()


def test_unread_notifications_show_in_the_nav_and_are_read_on_the_notifications_page(
    author, follower
):
    Notification.objects.create(
        user=follower, kind=Notification.Kind.CLAIMED, author=author, text="Grace claimed"
    )
    client = signed_in(follower)
    html = client.get(reverse("publications:home")).content.decode()
    assert 'class="nav-count">1<' in html
    page = client.get(reverse("profiles:notifications")).content.decode()
    assert "notification-unread" in page and "Grace claimed" in page
    assert 'class="nav-count"' not in client.get(reverse("publications:home")).content.decode()
    assert not Notification.objects.filter(read_at__isnull=True).exists()


def test_no_page_of_the_following_flow_shows_a_private_email(author, owner, follower):
    Notification.objects.create(
        user=follower, kind=Notification.Kind.CLAIMED, author=author, text="Claimed"
    )
    client = signed_in(follower)
    for url in (
        author.get_absolute_url(),
        reverse("profiles:following"),
        reverse("profiles:notifications"),
        reverse("profiles:inbox"),
    ):
        assert "grace.private@example.net" not in client.get(url).content.decode(), url


# Queries on listing pages -------------------------------------------------------------------


def _follow_many(user, authors: int, works_each: int) -> None:
    for n in range(authors):
        author = AuthorFactory(display_name=f"Researcher {n}")
        following.follow_create(user=user, author=author)
        for k in range(works_each):
            work_of(author, title=f"Work {k} of researcher {n}")
    author_metrics_refresh(author_ids=list(Follow.objects.values_list("author_id", flat=True)))


@pytest.mark.parametrize("authors", [2, 25])
def test_the_following_page_takes_the_same_queries_for_few_or_many_follows(
    stranger, authors, django_assert_max_num_queries
):
    _follow_many(stranger, authors, works_each=3)
    client = signed_in(stranger)
    # The first visit draws the works' list entries and keeps them where none is kept
    # (a bounded number of queries too); the budget is a later visit's, which reads no
    # byline.
    with django_assert_max_num_queries(29):
        client.get(reverse("profiles:following"))
    with django_assert_max_num_queries(15):
        response = client.get(reverse("profiles:following"))
    assert response.content.decode().count('class="followed-item"') == authors


@pytest.mark.parametrize("count", [3, 40])
def test_the_notifications_page_takes_a_fixed_number_of_queries(
    author, follower, count, django_assert_max_num_queries
):
    works = [work_of(author, title=f"Paper {n}") for n in range(count)]
    Notification.objects.bulk_create(
        Notification(user=follower, kind="new_work", author=author, work=w, text=w.title)
        for w in works
    )
    client = signed_in(follower)
    with django_assert_max_num_queries(7):
        response = client.get(reverse("profiles:notifications"))
    assert "Paper 0" in response.content.decode() or "Paper 2" in response.content.decode()


def test_an_anonymous_page_counts_followers_with_the_record_in_no_query_of_its_own(author):
    """The count an anonymous visitor sees is read with the record: right after follows
    come and go (a follower's account deleted too, which no metrics row hears of)."""
    from django.contrib.auth.models import AnonymousUser

    from pages.researcher_page import author_shown
    from tests.factories import UserFactory

    people = [UserFactory() for _ in range(3)]
    for user in people:
        following.follow_create(user=user, author=author)
    people[0].delete()
    shown = author_shown(author.pk)
    with CaptureQueriesContext(connection) as queries:
        state = following.follow_state(author=shown, user=AnonymousUser())
    assert state.count == 2 == Follow.objects.filter(author=author).count()
    assert not queries.captured_queries
    html = Client().get(author.get_absolute_url()).content.decode()
    assert "2 followers" in html

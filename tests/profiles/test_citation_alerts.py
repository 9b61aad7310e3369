"""A follower can ask to hear about new citations of a researcher's works."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from catalogue.models import Citation
from ingestion.ingest.works import ingest_works
from ingestion.records import WorkRecord
from profiles.following import digest
from profiles.following import services as following
from profiles.following.services import FollowError
from profiles.models import Follow, Notification, Preferences
from tests.factories import AuthorFactory, WorkFactory
from tests.profiles.claim_people import person
from tests.profiles.social_people import work_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def lise():
    return AuthorFactory(display_name="Lise Meitner")


def follower(username: str, author, *, alerts: bool, days: float = 3):
    user = person(username)
    follow = Follow.objects.create(user=user, author=author)
    since = timezone.now() - timedelta(days=days)
    Follow.objects.filter(pk=follow.pk).update(
        created_at=since, citation_alerts_since=since if alerts else None
    )
    return user


def link(citing, cited, *, hours_ago: float = 1) -> Citation:
    return Citation.objects.create(
        citing=citing,
        citing_openalex_id=f"W{citing.pk}00",
        cited_openalex_id=f"W{cited.pk}01",
        cited=cited,
        linked_at=timezone.now() - timedelta(hours=hours_ago),
    )


def test_only_followers_who_asked_hear_about_a_new_citation_once(lise):
    asked = follower("otto", lise, alerts=True)
    silent = follower("fritz", lise, alerts=False)
    cited = work_of(lise, title="Disintegration of uranium", days_ago=30)
    citing = WorkFactory(title="Nuclear fission explained")
    link(citing, cited)
    assert following.notify_new_citations(author_ids=[lise.pk]) == 1
    assert following.notify_new_citations(author_ids=[lise.pk]) == 0
    note = Notification.objects.get()
    assert note.user == asked and note.kind == Notification.Kind.NEW_CITATION
    assert note.work == citing
    assert "Nuclear fission explained cites Disintegration of uranium" in note.text
    assert not Notification.objects.filter(user=silent).exists()


def test_citations_linked_before_the_alerts_were_asked_for_are_not_announced(lise):
    follower("otto", lise, alerts=True, days=1)
    cited = work_of(lise, title="Old work", days_ago=30)
    link(WorkFactory(title="Cited two days ago"), cited, hours_ago=48)
    link(WorkFactory(title="Cited an hour ago"), cited, hours_ago=1)
    assert following.notify_new_citations(author_ids=[lise.pk]) == 1
    assert "Cited an hour ago" in Notification.objects.get().text


def test_an_import_that_links_a_citation_alerts_the_follower(lise):
    """The whole path: a batch resolves a citation, its follow-up notifies."""
    user = follower("otto", lise, alerts=True)
    cited = work_of(lise, title="Held work", days_ago=30)
    cited.openalex_id = "W4242"
    cited.save(update_fields=["openalex_id"])
    record = WorkRecord(
        source="openalex",
        external_id="W777",
        openalex_id="W777",
        title="A new work that cites hers",
        referenced_works=["W4242"],
    )
    result = ingest_works([({"id": "W777"}, record)])
    assert cited.pk in result.work_ids and lise.pk in result.author_ids
    following.notify_new_citations(author_ids=sorted(result.author_ids))
    assert Notification.objects.get(user=user).kind == Notification.Kind.NEW_CITATION


def test_the_follow_box_turns_citation_alerts_on_and_off(client, lise):
    user = follower("otto", lise, alerts=False)
    client.force_login(user)
    url = reverse("profiles:citation_alerts", args=[lise.pk])
    page = client.get(lise.get_absolute_url()).content.decode()
    assert "Tell me about new citations of their works" in page
    client.post(url, {"on": "1"})
    assert Follow.objects.get(user=user).citation_alerts_since is not None
    page = client.get(lise.get_absolute_url()).content.decode()
    assert "Stop citation alerts" in page
    client.post(url, {"on": "0"})
    assert Follow.objects.get(user=user).citation_alerts_since is None


def test_citation_alerts_need_a_follow(lise):
    with pytest.raises(FollowError):
        following.follow_citation_alerts_set(user=person("stranger"), author=lise, on=True)


def test_the_digest_lists_new_citations(lise):
    user = follower("otto", lise, alerts=True)
    Preferences.objects.create(
        user=user, email_digest=True, digest_sent_at=timezone.now() - timedelta(days=1, hours=1)
    )
    cited = work_of(lise, title="Held work", days_ago=30)
    link(WorkFactory(title="The citing work"), cited)
    assert digest.digests_send() == 1
    message = mail.outbox[0]
    assert "1 new citation of works by researchers you follow" in message.subject
    assert "The citing work" in message.body and "cites Held work" in message.body


def test_the_follows_api_turns_citation_alerts_on_and_off(client, lise):
    user = follower("otto", lise, alerts=False)
    client.force_login(user)
    url = f"/api/v1/follows/{lise.pk}/"
    assert client.get(url).json()["citation_alerts_since"] is None
    body = client.patch(url, {"citation_alerts": True}, content_type="application/json").json()
    assert body["citation_alerts_since"] is not None
    assert Follow.objects.get(user=user).citation_alerts_since is not None
    client.patch(url, {"citation_alerts": False}, content_type="application/json")
    assert Follow.objects.get(user=user).citation_alerts_since is None
    other = AuthorFactory()
    response = client.patch(
        f"/api/v1/follows/{other.pk}/", {"citation_alerts": True}, content_type="application/json"
    )
    assert response.status_code == 404

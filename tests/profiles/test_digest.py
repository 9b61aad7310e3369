"""The opt-in daily e-mail digest of new works by followed researchers."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from config.celery import app as celery_app
from profiles import tasks
from profiles.following import digest
from profiles.following import services as following
from profiles.models import Follow, Preferences
from tests.factories import AuthorFactory
from tests.people import person, work_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def lise():
    return AuthorFactory(display_name="Lise Meitner")


def reader(username: str, author, *, opted_in=True, confirmed=True, days: float = 3):
    """A user who follows ``author`` since ``days`` days and opted in (or not) to the digest."""
    user = person(username, confirmed=confirmed)
    follow = Follow.objects.create(user=user, author=author)
    Follow.objects.filter(pk=follow.pk).update(created_at=timezone.now() - timedelta(days=days))
    Preferences.objects.create(
        user=user,
        email_digest=opted_in,
        digest_sent_at=timezone.now() - timedelta(days=1, hours=1) if opted_in else None,
    )
    return user


def test_an_opted_in_reader_gets_one_email_with_the_new_works(lise, settings):
    settings.SITE_URL = "https://scholar.example.org"
    user = reader("otto", lise)
    work_of(lise, title="Known before the last digest", days_ago=2)
    new = work_of(lise, title="Disintegration of uranium by neutrons", days_ago=0.5)
    assert tasks.send_digests() == 1
    [message] = mail.outbox
    assert message.to == ["otto@example.org"]
    assert "1 new work by researchers you follow" in message.subject
    assert "Disintegration of uranium by neutrons" in message.body
    assert "Known before the last digest" not in message.body
    assert f"https://scholar.example.org{new.get_absolute_url()}" in message.body  # SITE_URL
    html, kind = message.alternatives[0]
    assert kind == "text/html" and "Disintegration of uranium by neutrons" in html
    assert "Lise Meitner" in message.body
    preferences = Preferences.objects.get(user=user)
    assert timezone.now() - preferences.digest_sent_at < timedelta(minutes=1)


def test_the_digest_is_not_sent_twice_in_a_day(lise):
    reader("otto", lise)
    work_of(lise, title="Fission", days_ago=0.2)
    assert digest.digests_send() == 1
    work_of(lise, title="Another new work")
    assert digest.digests_send() == 0
    assert len(mail.outbox) == 1


def test_nothing_new_means_no_email(lise):
    reader("otto", lise)
    work_of(lise, title="Old news", days_ago=5)
    assert digest.digests_send() == 0
    assert mail.outbox == []


def test_readers_who_did_not_opt_in_get_nothing(lise):
    reader("otto", lise, opted_in=False)
    work_of(lise, title="Fission", days_ago=0.2)
    assert digest.digests_send() == 0
    assert mail.outbox == []


def test_no_email_to_an_unconfirmed_address(lise):
    reader("otto", lise, confirmed=False)
    work_of(lise, title="Fission", days_ago=0.2)
    assert digest.digests_send() == 0
    assert mail.outbox == []


def test_works_stored_before_the_follow_are_not_news(lise):
    reader("otto", lise, days=0.1)
    work_of(lise, title="Stored before the follow", days_ago=0.5)
    assert digest.digests_send() == 0


def test_a_failed_send_does_not_stop_the_others(lise, monkeypatch):
    reader("otto", lise)
    reader("hahn", lise)
    work_of(lise, title="Fission", days_ago=0.2)
    real = digest._message
    calls = []

    def flaky(user, address, found):
        calls.append(user.username)
        if user.username == "otto":
            raise OSError("mail server refused the connection")
        return real(user, address, found)

    monkeypatch.setattr(digest, "_message", flaky)
    assert digest.digests_send() == 1
    assert sorted(calls) == ["hahn", "otto"]
    assert [m.to for m in mail.outbox] == [["hahn@example.org"]]
    otto = Preferences.objects.get(user__username="otto")
    assert timezone.now() - otto.digest_sent_at > timedelta(days=1)  # tried again tomorrow


def test_the_digest_is_on_the_daily_schedule():
    schedule = celery_app.conf.beat_schedule["send-following-digests"]
    assert schedule["task"] == "profiles.tasks.send_digests"
    assert "profiles.tasks.send_digests" in celery_app.tasks
    assert "profiles.tasks.refresh_tracked_authors" in celery_app.tasks


def test_the_first_digest_goes_at_the_next_scheduled_time_after_opting_in(lise):
    user = reader("otto", lise, opted_in=False)
    following.preferences_update(user=user, email_digest=True)
    work_of(lise, title="Stored an hour after opting in", days_ago=-1 / 24)
    work_of(lise, title="Stored before opting in", days_ago=0.5)
    next_morning = timezone.now() + timedelta(hours=2)  # the schedule fires soon after opting in
    assert digest.digests_send(now=next_morning) == 1
    [message] = mail.outbox
    assert "Stored an hour after opting in" in message.body
    assert "Stored before opting in" not in message.body
    assert digest.digests_send(now=next_morning + timedelta(hours=1)) == 0  # not twice


def test_the_digest_links_the_site_url_not_the_sites_placeholder(lise, settings):
    from django.contrib.sites.models import Site

    Site.objects.filter(pk=settings.SITE_ID).update(domain="example.com")
    Site.objects.clear_cache()
    settings.SITE_URL = "http://pages.example.net:8080"
    reader("otto", lise)
    work_of(lise, title="Fission", days_ago=0.2)
    assert digest.digests_send() == 1
    [message] = mail.outbox
    html, _ = message.alternatives[0]
    for body in (message.body, html):
        assert "example.com" not in body
        assert "http://pages.example.net:8080/works/" in body
        assert "http://pages.example.net:8080/following/" in body

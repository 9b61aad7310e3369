"""The opt-in daily e-mail digest of new works by followed researchers.

It also lists new citations of the works of followed researchers for whom the
user asked for citation alerts (``Follow.citation_alerts_since``).

Each user who opted in gets at most one e-mail a day, only when something is
new: the works stored since their last digest, or since they opted in (and
after they followed the author). The first digest goes at the next scheduled
time after opting in. It goes to their primary confirmed address; a user without one gets
nothing. A failed send is logged and retried the next day; the others go on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from catalogue import selectors
from catalogue.models import Citation, Work
from config.sites import absolute_url
from profiles.following.services import new_citations_for, new_works_for
from profiles.models import Preferences

logger = logging.getLogger("profiles")

DIGEST_MAX_WORKS = 30
DIGEST_MAX_CITATIONS = 30
# A digest is not sent twice within this, should the schedule fire twice.
DIGEST_MIN_INTERVAL = timedelta(hours=20)


@dataclass
class Digest:
    works: list[Work]
    total: int
    citations: list[Citation] = field(default_factory=list)  # newest first
    citations_total: int = 0

    @property
    def is_empty(self) -> bool:
        return not self.works and not self.citations


def digest_address(user) -> str | None:
    """The user's primary confirmed e-mail address, if any."""
    from allauth.account.models import EmailAddress

    row = (
        EmailAddress.objects.filter(user=user, verified=True)
        .order_by("-primary", "pk")
        .values_list("email", flat=True)
        .first()
    )
    return row


def digest_for(user, *, since) -> Digest:
    new = new_works_for(user, since=since).order_by("-created_at", "-id")
    works = list(selectors.works_with_authors(new)[:DIGEST_MAX_WORKS])
    total = len(works) if len(works) < DIGEST_MAX_WORKS else new.count()
    cited = new_citations_for(user, since=since).order_by("-linked_at", "-id")
    citations = list(cited[:DIGEST_MAX_CITATIONS])
    more = len(citations) == DIGEST_MAX_CITATIONS
    return Digest(works, total, citations, cited.count() if more else len(citations))


def _message(user, address: str, digest: Digest) -> EmailMultiAlternatives:
    context = {
        "digest": digest,
        "site_url": settings.SITE_URL,
        "site_name": settings.SITE_NAME,
        "following_url": absolute_url(reverse("profiles:following")),
    }
    subject = render_to_string("profiles/email/digest_subject.txt", context).strip()
    text = render_to_string("profiles/email/digest_message.txt", context)
    html = render_to_string("profiles/email/digest_message.html", context)
    message = EmailMultiAlternatives(subject, text, to=[address])
    message.attach_alternative(html, "text/html")
    return message


def digest_send(preferences: Preferences, *, now=None) -> bool:
    """Send one user's digest if there is something new; return whether one was sent."""
    now = now or timezone.now()
    user = preferences.user
    sent_at = preferences.digest_sent_at
    if sent_at and now - sent_at < DIGEST_MIN_INTERVAL:
        return False
    since = max(filter(None, [sent_at, preferences.digest_since]), default=now - timedelta(days=1))
    digest = digest_for(user, since=since)
    if digest.is_empty:
        return False
    address = digest_address(user)
    if address is None:
        return False
    _message(user, address, digest).send()
    Preferences.objects.filter(pk=preferences.pk).update(digest_sent_at=now, digest_since=now)
    return True


def digests_send(*, now=None) -> int:
    """Send every due digest; return how many were sent."""
    now = now or timezone.now()
    sent = 0
    due = Preferences.objects.filter(email_digest=True, user__is_active=True).select_related("user")
    for preferences in due.iterator(chunk_size=500):
        try:
            sent += digest_send(preferences, now=now)
        except Exception:  # one bad address or mail hiccup must not stop the others
            logger.exception("digest: sending to user %s failed", preferences.user_id)
    return sent

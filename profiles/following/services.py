"""Following researchers: follow and unfollow, the following feed, and follower notifications.

Follow and unfollow are idempotent. Each keeps the author's ``followers_count``
on the metrics row in step in the same transaction, and once committed sends
``follow_changed`` so the trust score (community component) is recomputed.

A work is "new" to a follower when we first stored it after they started
following its author; follower notifications and the following feed both use
that rule, so a refresh of old works never announces them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Count, F, IntegerField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from catalogue import metrics
from catalogue.display import clip_line
from catalogue.models import Author, Authorship, Citation, Work
from config.compiled import Compiled
from profiles.models import Claim, Follow, Notification, Preferences, Profile
from profiles.signals import follow_changed

# Follow and unfollow, per signed-in user (pages and API together).
FOLLOW_RATE = "120/h"
# How far back a batch of changed authors is searched for new works to announce.
NEW_WORK_WINDOW = timedelta(days=14)
FEED_NEW_LIMIT = 50
FEED_RECENT_LIMIT = 20


class FollowError(ValueError):
    """A follow step that cannot be taken; the message says why, for the person asking."""


def _signed_in(user) -> bool:
    return user is not None and user.is_authenticated


def _announce(author_id: int) -> None:
    transaction.on_commit(lambda: follow_changed.send(sender=Follow, author_id=author_id))


# Writes -------------------------------------------------------------------------------


def follow_create(*, user: AbstractBaseUser, author: Author) -> tuple[Follow, bool]:
    """Follow the author; return the follow and whether it is new (following twice is a no-op)."""
    if author.merged_into_id or author.is_deleted:
        raise FollowError(
            "This record was merged or removed; follow the researcher's current page."
        )
    if Profile.objects.filter(author=author, user=user).exists():
        raise FollowError("This is your own record: you cannot follow yourself.")
    with transaction.atomic():
        follow, created = Follow.objects.get_or_create(user=user, author=author)
        if created:
            metrics.author_followers_refresh(author_ids=[author.pk])
            _announce(author.pk)
    return follow, created


def follow_delete(*, user: AbstractBaseUser, author: Author) -> bool:
    """Stop following the author; return whether there was a follow to remove."""
    with transaction.atomic():
        deleted, _ = Follow.objects.filter(user=user, author=author).delete()
        if deleted:
            metrics.author_followers_refresh(author_ids=[author.pk])
            _announce(author.pk)
    return bool(deleted)


def follow_citation_alerts_set(*, user: AbstractBaseUser, author: Author, on: bool) -> Follow:
    """Ask (or stop asking) to hear about new citations of a followed author's works.

    Only citations that reach the site after the alerts were turned on are announced.
    """
    follow = Follow.objects.filter(user=user, author=author).first()
    if follow is None:
        raise FollowError("Follow the researcher first to hear about citations of their works.")
    if on and follow.citation_alerts_since is None:
        follow.citation_alerts_since = timezone.now()
    elif not on:
        follow.citation_alerts_since = None
    follow.save(update_fields=["citation_alerts_since"])
    return follow


def preferences_for(user: AbstractBaseUser) -> Preferences:
    preferences, _ = Preferences.objects.get_or_create(user=user)
    return preferences


def preferences_update(*, user: AbstractBaseUser, email_digest: bool) -> Preferences:
    """Opt in to (or out of) the daily e-mail digest."""
    preferences = preferences_for(user)
    if preferences.email_digest != email_digest:
        preferences.email_digest = email_digest
        if email_digest:
            # The first digest covers what arrives from now on, not everything ever followed.
            # It goes out at the next scheduled time: digest_sent_at is left alone.
            preferences.digest_since = timezone.now()
        preferences.save(update_fields=["email_digest", "digest_since"])
    return preferences


# Reads --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FollowState:
    """What the follow button shows: the count, and whether the viewer follows."""

    count: int
    following: bool
    is_owner: bool = False
    citation_alerts: bool = False


# The attribute of an author read with its follower count (``followers_read``).
FOLLOWERS_READ = "followers_read"


def followers_read() -> RawSQL:
    """The follower count of each author a query reads, as an annotation named
    ``FOLLOWERS_READ``: a page reads it with the record instead of in a query of its own.
    In plain SQL, as a subquery of the ORM costs more to build than to run."""
    quote = connection.ops.quote_name
    author = f"{quote(Author._meta.db_table)}.{quote(Author._meta.pk.column)}"
    table = quote(Follow._meta.db_table)
    column = quote(Follow._meta.get_field("author").column)
    sql = f"SELECT COUNT(*) FROM {table} f WHERE f.{column} = {author}"  # noqa: S608 - names
    return RawSQL(sql, [], output_field=IntegerField())  # noqa: S611 - no values


def _follows_of(author: int, user: int) -> QuerySet:
    """The record's follower count, and whether ``user`` follows it (with alerts)."""
    mine = Q(user_id=user)
    alerts = mine & Q(citation_alerts_since__isnull=False)
    return (
        Follow.objects.filter(author_id=author)
        .order_by()
        .values("author_id")
        .annotate(
            count=Count("pk"), mine=Count("pk", filter=mine), alerts=Count("pk", filter=alerts)
        )
    )


# Read on every researcher page a member opens: built once.
_FOLLOWS = Compiled(_follows_of, "author", "user")


def follow_state(*, author: Author, user) -> FollowState:
    """The follower count and the viewer's own follow, in one query (none for an
    anonymous visitor where the count was read with the record: ``followers_read``)."""
    signed_in = _signed_in(user)
    if signed_in:
        rows = _FOLLOWS.rows(author=author.pk, user=user.pk)
        row = rows[0] if rows else {"count": 0, "mine": 0, "alerts": 0}
    else:  # an anonymous visitor follows nothing: the count alone
        count = getattr(author, FOLLOWERS_READ, None)
        if count is None:
            count = Follow.objects.filter(author_id=author.pk).count()
        row = {"count": count, "mine": 0, "alerts": 0}
    profile = getattr(author, "profile", None) if signed_in else None
    is_owner = profile is not None and profile.user_id == user.pk
    return FollowState(
        count=row["count"],
        following=bool(row["mine"]),
        is_owner=is_owner,
        citation_alerts=bool(row["alerts"]),
    )


def followed_authors(user: AbstractBaseUser) -> QuerySet[Author]:
    """The authors the user follows, most recently followed first, with their metrics."""
    return (
        Author.objects.filter(follows__user=user)
        .select_related("metrics", "last_known_institution")
        .annotate(followed_at=F("follows__created_at"))
        .order_by("-followed_at", "pk")
    )


def new_works_for(user: AbstractBaseUser, *, since=None) -> QuerySet[Work]:
    """Works of followed authors stored after ``since`` and after the user followed the author."""
    queryset = Work.objects.visible().filter(
        authorships__author__follows__user=user,
        created_at__gt=F("authorships__author__follows__created_at"),
    )
    if since is not None:
        queryset = queryset.filter(created_at__gt=since)
    return queryset.distinct()


@dataclass
class FollowingFeed:
    new_works: list[Work]
    new_count: int
    recent_works: list[Work]
    seen_at: object  # the previous visit (None on the first)
    authors: list[Author]
    preferences: Preferences


def following_feed(*, user: AbstractBaseUser) -> FollowingFeed:
    """The following page: what is new since the last visit, then recent works; marks the visit."""
    preferences = preferences_for(user)
    seen_at = preferences.following_seen_at
    new = new_works_for(user, since=seen_at).order_by("-created_at", "-id")
    # Rows alone: the page shows kept list entries, read with bylines only when missing.
    new_works = list(new[:FEED_NEW_LIMIT])
    new_count = len(new_works)
    if new_count == FEED_NEW_LIMIT:
        new_count = new.count()
    shown = [work.pk for work in new_works]
    recent = (
        Work.objects.visible()
        .filter(authorships__author__follows__user=user)
        .exclude(pk__in=shown)
        .distinct()
        .order_by(F("publication_date").desc(nulls_last=True), "-id")
    )
    recent_works = list(recent[:FEED_RECENT_LIMIT])
    authors = list(followed_authors(user))
    now = timezone.now()
    Preferences.objects.filter(pk=preferences.pk).update(following_seen_at=now)
    Notification.objects.filter(
        user=user, read_at__isnull=True, kind=Notification.Kind.NEW_WORK
    ).update(read_at=now)
    return FollowingFeed(new_works, new_count, recent_works, seen_at, authors, preferences)


# Follower notifications ---------------------------------------------------------------


def notify_new_works(*, author_ids) -> int:
    """Tell followers of these authors about works stored since they followed; return how many.

    Called after an import batch commits. Each (follower, work) pair is announced
    once, whatever the number of batches that touch the work.
    """
    ids = sorted(set(author_ids))
    if not ids:
        return 0
    since = timezone.now() - NEW_WORK_WINDOW
    follows = list(
        Follow.objects.filter(author_id__in=ids).values_list("user_id", "author_id", "created_at")
    )
    if not follows:
        return 0
    rows = (
        Authorship.objects.of_visible_works()
        .filter(
            author_id__in={author_id for _, author_id, _ in follows}, work__created_at__gt=since
        )
        .values_list(
            "author_id", "work_id", "work__created_at", "work__title", "author__display_name"
        )
    )
    works_by_author: dict[int, list] = {}
    for author_id, work_id, created_at, title, name in rows:
        works_by_author.setdefault(author_id, []).append((work_id, created_at, title, name))
    notifications, seen = [], set()
    for user_id, author_id, followed_at in follows:
        for work_id, created_at, title, name in works_by_author.get(author_id, []):
            if created_at <= followed_at or (user_id, work_id) in seen:
                continue
            seen.add((user_id, work_id))
            text = f"New work by {name}: {title or 'untitled'}"
            notifications.append(
                Notification(
                    user_id=user_id,
                    kind=Notification.Kind.NEW_WORK,
                    author_id=author_id,
                    work_id=work_id,
                    text=text[:300],
                )
            )
    created = Notification.objects.bulk_create(notifications, ignore_conflicts=True)
    return len(created)


def new_citations_for(user: AbstractBaseUser, *, since=None) -> QuerySet[Citation]:
    """Citations linked here after ``since`` to works of authors the user hears about.

    A citation counts once both works are held here (``Citation.linked_at``), and
    only after the user asked for citation alerts on that author.
    """
    queryset = Citation.objects.filter(
        cited__authorships__author__follows__user=user,
        cited__authorships__author__follows__citation_alerts_since__isnull=False,
        linked_at__gt=F("cited__authorships__author__follows__citation_alerts_since"),
        citing__merged_into__isnull=True,
    )
    if since is not None:
        queryset = queryset.filter(linked_at__gt=since)
    ids = queryset.values("pk")
    return Citation.objects.filter(pk__in=ids).select_related("citing", "cited")


def _citations_linked_since(author_ids: set[int], since) -> dict[int, list]:
    """Per cited author: (citing id, citing title, cited title, linked at, author name)."""
    rows = (
        Citation.objects.filter(
            cited__authorships__author_id__in=author_ids,
            linked_at__gt=since,
            citing__merged_into__isnull=True,
        )
        .values_list(
            "cited__authorships__author_id",
            "citing_id",
            "citing__title",
            "cited__title",
            "linked_at",
            "cited__authorships__author__display_name",
        )
        .order_by("linked_at", "citing_id")
    )
    by_author: dict[int, list] = {}
    for author_id, *rest in rows:
        by_author.setdefault(author_id, []).append(rest)
    return by_author


def notify_new_citations(*, author_ids) -> int:
    """Tell followers who asked for it about new citations of these authors' works.

    Called after an import batch commits. A citing work is announced to a user
    once, whatever the number of their followed works it cites.
    """
    ids = sorted(set(author_ids))
    if not ids:
        return 0
    since = timezone.now() - NEW_WORK_WINDOW
    follows = list(
        Follow.objects.filter(author_id__in=ids, citation_alerts_since__isnull=False).values_list(
            "user_id", "author_id", "citation_alerts_since"
        )
    )
    if not follows:
        return 0
    by_author = _citations_linked_since({author_id for _, author_id, _ in follows}, since)
    seen = set(
        Notification.objects.filter(
            kind=Notification.Kind.NEW_CITATION,
            user_id__in={user_id for user_id, _, _ in follows},
            work_id__in={row[0] for found in by_author.values() for row in found},
        ).values_list("user_id", "work_id")
    )  # each citing work is announced to a user once, whichever batch links it
    notifications = []
    for user_id, author_id, alerts_since in follows:
        for citing_id, citing_title, cited_title, linked_at, name in by_author.get(author_id, []):
            if linked_at <= alerts_since or (user_id, citing_id) in seen:
                continue
            seen.add((user_id, citing_id))
            text = (
                f"New citation of {name}: {clip_line(citing_title, 120) or 'an untitled work'} "
                f"cites {clip_line(cited_title, 120) or 'an untitled work'}"
            )
            notifications.append(
                Notification(
                    user_id=user_id,
                    kind=Notification.Kind.NEW_CITATION,
                    author_id=author_id,
                    work_id=citing_id,
                    text=text[:300],
                )
            )
    created = Notification.objects.bulk_create(notifications, ignore_conflicts=True)
    return len(created)


def notify_claimed(*, author_id: int) -> int:
    """Tell followers that the researcher claimed their record; once per approved claim."""
    claim = (
        Claim.objects.filter(author_id=author_id, status=Claim.Status.APPROVED)
        .select_related("author")
        .first()
    )
    if claim is None:
        return 0
    decided = claim.decided_at or claim.created_at
    told = Notification.objects.filter(
        kind=Notification.Kind.CLAIMED, author_id=author_id, created_at__gte=decided
    ).values("user_id")
    followers = (
        Follow.objects.filter(author_id=author_id)
        .exclude(user_id=claim.user_id)
        .exclude(user_id__in=told)
        .values_list("user_id", flat=True)
    )
    text = f"{claim.author.display_name} claimed their record: it is now kept by the researcher."
    rows = [
        Notification(
            user_id=user_id, kind=Notification.Kind.CLAIMED, author_id=author_id, text=text[:300]
        )
        for user_id in followers
    ]
    return len(Notification.objects.bulk_create(rows))

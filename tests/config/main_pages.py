"""The site's main pages with real records behind them, for the HTML checker and axe-core.

``main_pages()`` loads the demo data set, makes one member who holds a record
(two works pinned, one researcher followed, an invitation in the inbox) and one
newcomer about to claim a record, and answers (name, address, user or None) per page.
"""

from __future__ import annotations

from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from catalogue.models import Author, AuthorInstitution, Topic, Venue, WorkTopic
from profiles.claims import ownership
from profiles.collaboration import services as collaboration
from profiles.following import services as following
from profiles.models import Claim, Profile
from tests.factories import InstitutionFactory, UserFactory


def main_pages() -> list[tuple[str, str, object]]:
    call_command("demo", verbosity=0)
    held = Author.objects.get(openalex_id="A9000000002")
    other = Author.objects.get(openalex_id="A9000000001")
    member = UserFactory(username="member", email="member@example.org")
    newcomer = UserFactory(username="newcomer", email="newcomer@example.org")
    Claim.objects.create(
        user=member,
        author=held,
        method=Claim.Method.EVIDENCE,
        evidence="My lab page lists these papers under my name.",
        status=Claim.Status.APPROVED,
        decided_at=timezone.now(),
    )
    profile = Profile.objects.create(user=member, author=held, open_to_collaborate=True)
    colleague = UserFactory(username="colleague", email="colleague@example.org")
    Claim.objects.create(
        user=colleague,
        author=other,
        method=Claim.Method.EVIDENCE,
        evidence="My lab page lists these papers under my name.",
        status=Claim.Status.APPROVED,
        decided_at=timezone.now(),
    )
    Profile.objects.create(user=colleague, author=other)
    works = list(held.authorships.order_by("work__publication_date").values_list("work", flat=True))
    for work in held.authorships.filter(work_id__in=works[:2]).select_related("work"):
        ownership.work_pin(profile=profile, work=work.work, actor=member)
    following.follow_create(user=member, author=other)
    collaboration.invitation_create(
        sender=colleague,
        profile=profile,
        topic="Shared benchmark",
        message="Shall we compare our results on a shared benchmark?",
    )
    work = held.authorships.select_related("work").first().work
    unclaimed = (
        Author.objects.exclude(pk__in=[held.pk, other.pk])
        .filter(profile__isnull=True)
        .order_by("pk")
        .first()
    )
    # An institution and a topic of the held record with a name that needs care, as an
    # OpenAlex import would give them, so their pages list a researcher and works.
    institution = InstitutionFactory(
        name="Université du Québec à Montréal", ror="002rjbv21", country_code="CA"
    )
    AuthorInstitution.objects.create(author=held, institution=institution)
    field, _ = Topic.objects.get_or_create(
        key="openalex:fields/17", defaults={"name": "Computer Science", "kind": "field"}
    )
    topic = Topic.objects.create(
        key="openalex:T10054", name="Parallel Computing", kind="topic", parent=field
    )
    for link in held.authorships.all()[:3]:
        link.institutions.add(institution)
        WorkTopic.objects.create(work_id=link.work_id, topic=topic, source="openalex")
    venue = Venue.objects.order_by("pk").first()
    assert venue is not None, "the demo data set lost its venues"
    return [
        ("home", "/", None),
        ("researcher", held.get_absolute_url(), None),
        ("work", work.get_absolute_url(), None),
        ("search", reverse("publications:search") + "?q=gradient", None),
        ("sign-in", reverse("account_login"), None),
        ("sign-up", reverse("account_signup"), None),
        ("trust", reverse("trust:explain"), None),
        ("following", reverse("profiles:following"), member),
        ("inbox", reverse("profiles:inbox"), member),
        ("claim", reverse("profiles:claim", args=[unclaimed.pk]), newcomer),
        ("status", reverse("status"), None),
        ("explorer", reverse("graph:explorer", args=[held.pk]), None),
        ("work-explorer", reverse("graph:work-explorer", args=[work.pk]), None),
        ("institution", institution.get_absolute_url(), None),
        ("venue", venue.get_absolute_url(), None),
        ("topic", topic.get_absolute_url(), None),
    ]

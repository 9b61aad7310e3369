"""The admin front page shows staff what waits for a decision and what runs."""

import re
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from catalogue.models import (
    IdentityRequest,
    ImportProblem,
    ImportRun,
    MergeCandidate,
    SplitProposal,
)
from profiles.models import Claim, Report
from tests.factories import AuthorFactory, UserFactory, WorkFactory

pytestmark = pytest.mark.django_db

INDEX = reverse("admin:index")
# Session, user, every queue's count in one statement, the imports under way,
# the recent actions, and room for three more: one query per queue would pass it.
QUERY_CAP = 8


def claims(status: str, n: int) -> None:
    for _ in range(n):
        Claim.objects.create(
            user=UserFactory(), author=AuthorFactory(), status=status, method="evidence"
        )


QUEUE = (
    r'<a href="([^"]+)"><span class="curation-queue-count">(\d+)</span> '
    r'<span class="curation-queue-label">{label}</span>'
    r'(?:<br><span class="curation-meta curation-queue-oldest">oldest waiting '
    r'<time datetime="([^"]+)">[^<]+</time></span>)?</a>'
)


def queue(html: str, label: str) -> tuple[int, str]:
    """(count, link) of the queue called ``label`` on the front page."""
    match = re.search(QUEUE.format(label=re.escape(label)), html)
    assert match, f"no queue {label!r}"
    return int(match.group(2)), match.group(1).replace("&amp;", "&")


def oldest(html: str, label: str) -> str | None:
    """When the oldest row of the queue called ``label`` was raised, as the page dates it."""
    return re.search(QUEUE.format(label=re.escape(label)), html).group(3)


def identity_requests(statuses: list[str]) -> list[IdentityRequest]:
    return [
        IdentityRequest.objects.create(
            kind="join_record", author=AuthorFactory(), other_author=AuthorFactory(), status=status
        )
        for status in statuses
    ]


def split_proposals(statuses: list[str]) -> list[SplitProposal]:
    return [
        SplitProposal.objects.create(
            author=AuthorFactory(), groups=[{"work_ids": [1]}], reason="two circles", status=status
        )
        for status in statuses
    ]


@pytest.fixture
def busy():
    claims("pending", 3)
    claims("disputed", 2)
    claims("approved", 4)
    for status in ["open", "open", "ignored"]:
        ImportProblem.objects.create(source="openalex", status=status, error="bad record")
    work_a, work_b = WorkFactory(), WorkFactory()
    MergeCandidate.objects.create(kind="work", work_a=work_a, work_b=work_b, reason="same title")
    identity_requests(["pending", "pending", "applied", "rejected", "undone"])
    split_proposals(["open", "split", "kept_whole", "superseded"])
    reporter = UserFactory()
    Report.objects.create(
        reporter=reporter, kind="misattribution", author=AuthorFactory(), work=work_a, reason="no"
    )
    for status, processed, total in [
        ("running", 40, 200),
        ("queued", 0, None),
        ("succeeded", 9, 9),
    ]:
        ImportRun.objects.create(
            source="openalex",
            kind="author",
            parameters={"id": "A1"},
            status=status,
            processed=processed,
            total=total,
        )


def test_the_front_page_counts_each_queue_and_links_its_filtered_list(
    client, busy, django_assert_max_num_queries
):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    with django_assert_max_num_queries(QUERY_CAP):
        html = client.get(INDEX).content.decode()
    expected = {
        "Claims pending review": (3, "profiles_claim_changelist", "status__exact=pending"),
        "Claims disputed": (2, "profiles_claim_changelist", "status__exact=disputed"),
        "Import problems open": (2, "publications_importproblem_changelist", "status__exact=open"),
        "Merge candidates open": (
            1,
            "publications_mergecandidate_changelist",
            "status__exact=open",
        ),
        "Reports open": (1, "profiles_report_changelist", "status__exact=open"),
        "Identity requests pending": (
            2,
            "publications_identityrequest_changelist",
            "status__exact=pending",
        ),
        "Split proposals open": (1, "publications_splitproposal_changelist", "status__exact=open"),
    }
    for label, (count, name, query) in expected.items():
        shown, link = queue(html, label)
        assert (shown, link) == (count, f"{reverse('admin:' + name)}?{query}")
        listed = client.get(link)
        assert listed.status_code == 200
        assert listed.context["cl"].result_count == count  # exactly the rows that wait


def test_the_front_page_lists_imports_under_way_with_progress(client, busy):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    html = client.get(INDEX).content.decode()
    running = ImportRun.objects.get(status="running")
    assert reverse("admin:publications_importrun_change", args=[running.pk]) in html
    assert "40 / 200 (20%)" in html
    finished = ImportRun.objects.get(status="succeeded")
    assert reverse("admin:publications_importrun_change", args=[finished.pk]) not in html
    link = re.search(r'<a href="([^"]*status__in=[^"]*)"', html).group(1).replace("&amp;", "&")
    listed = client.get(link).content.decode()
    assert listed.count('class="curation-status curation-status--') == 2


def test_the_queries_stay_the_same_however_many_rows_wait(
    client, busy, django_assert_max_num_queries
):
    claims("pending", 20)
    for _ in range(10):
        ImportRun.objects.create(
            source="arxiv", kind="query", parameters={"query": "x"}, status="running"
        )
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    with django_assert_max_num_queries(QUERY_CAP):
        html = client.get(INDEX).content.decode()
    assert queue(html, "Claims pending review")[0] == 23
    assert "All imports under way" in html


def test_staff_see_only_the_queues_they_may_view(client, busy):
    clerk = UserFactory(is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_claim"))
    client.force_login(clerk)
    html = client.get(INDEX).content.decode()
    assert queue(html, "Claims pending review")[0] == 3
    hidden = [
        "Import problems open",
        "Merge candidates open",
        "Reports open",
        "Identity requests pending",
        "Split proposals open",
    ]
    for label in hidden:
        assert label not in html
    assert "Imports under way" not in html


@pytest.mark.parametrize(
    "codename, shown, hidden",
    [
        ("view_identityrequest", ("Identity requests pending", 2), "Split proposals open"),
        ("change_splitproposal", ("Split proposals open", 1), "Identity requests pending"),
    ],
)
def test_who_is_who_queues_show_only_to_staff_who_may_see_their_model(
    client, busy, codename, shown, hidden
):
    clerk = UserFactory(is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename=codename))
    client.force_login(clerk)
    html = client.get(INDEX).content.decode()
    label, count = shown
    assert queue(html, label)[0] == count
    assert client.get(queue(html, label)[1]).context["cl"].result_count == count
    assert hidden not in html and "Claims pending review" not in html


def test_each_queue_says_when_its_oldest_row_was_raised(client, busy):
    waited = timezone.now() - timedelta(days=3, hours=2)
    first, _ = IdentityRequest.objects.filter(status="pending").order_by("pk")
    IdentityRequest.objects.filter(pk=first.pk).update(created_at=waited)
    # A request decided long ago waits no longer: it does not date the queue.
    IdentityRequest.objects.filter(status="applied").update(created_at=waited - timedelta(days=9))
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    html = client.get(INDEX).content.decode()
    assert datetime.fromisoformat(oldest(html, "Identity requests pending")) == waited
    assert "oldest waiting <time" in html and ">3\xa0days, 2\xa0hours</time>" in html
    opened = SplitProposal.objects.get(status="open").created_at
    assert datetime.fromisoformat(oldest(html, "Split proposals open")) == opened


def test_an_empty_queue_shows_nought_and_no_oldest_row(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    html = client.get(INDEX).content.decode()
    for label in ["Identity requests pending", "Split proposals open", "Reports open"]:
        assert queue(html, label)[0] == 0 and oldest(html, label) is None
    assert "oldest waiting" not in html


def test_staff_with_no_permission_see_no_curation_panel(client, busy):
    client.force_login(UserFactory(is_staff=True))
    html = client.get(INDEX).content.decode()
    assert "curation-queue" not in html and "Imports under way" not in html

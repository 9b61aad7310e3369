"""The admin front page shows staff what waits for a decision and what runs."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from catalogue.models import ImportProblem, ImportRun, MergeCandidate
from profiles.models import Claim, Report
from tests.factories import AuthorFactory, UserFactory, WorkFactory

pytestmark = pytest.mark.django_db

INDEX = reverse("admin:index")


def claims(status: str, n: int) -> None:
    for _ in range(n):
        Claim.objects.create(
            user=UserFactory(), author=AuthorFactory(), status=status, method="evidence"
        )


def queue(html: str, label: str) -> tuple[int, str]:
    """(count, link) of the queue called ``label`` on the front page."""
    match = re.search(
        r'<a href="([^"]+)"><span class="curation-queue-count">(\d+)</span> '
        rf'<span class="curation-queue-label">{re.escape(label)}</span></a>',
        html,
    )
    assert match, f"no queue {label!r}"
    return int(match.group(2)), match.group(1).replace("&amp;", "&")


@pytest.fixture
def busy():
    claims("pending", 3)
    claims("disputed", 2)
    claims("approved", 4)
    for status in ["open", "open", "ignored"]:
        ImportProblem.objects.create(source="openalex", status=status, error="bad record")
    work_a, work_b = WorkFactory(), WorkFactory()
    MergeCandidate.objects.create(kind="work", work_a=work_a, work_b=work_b, reason="same title")
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
    with django_assert_max_num_queries(14):
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
    with django_assert_max_num_queries(14):
        html = client.get(INDEX).content.decode()
    assert queue(html, "Claims pending review")[0] == 23
    assert "All imports under way" in html


def test_staff_see_only_the_queues_they_may_view(client, busy):
    clerk = UserFactory(is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_claim"))
    client.force_login(clerk)
    html = client.get(INDEX).content.decode()
    assert queue(html, "Claims pending review")[0] == 3
    for hidden in ["Import problems open", "Merge candidates open", "Reports open"]:
        assert hidden not in html
    assert "Imports under way" not in html


def test_staff_with_no_permission_see_no_curation_panel(client, busy):
    client.force_login(UserFactory(is_staff=True))
    html = client.get(INDEX).content.decode()
    assert "curation-queue" not in html and "Imports under way" not in html

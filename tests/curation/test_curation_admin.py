"""The admin's curation pages: staff decide there, and only staff."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

import curation
from catalogue.models import (
    AuditEvent,
    Author,
    ImportProblem,
    ImportRun,
    MergeCandidate,
    Work,
)
from tests.curation.curation_records import openalex_work
from tests.factories import UserFactory, WorkFactory

pytestmark = pytest.mark.django_db


# The admin pages ------------------------------------------------------------------


def admin(name: str, *args) -> str:
    return reverse(f"admin:publications_{name}", args=args)


def test_new_import_form_shows_errors_for_bad_values(staff_client):
    url = admin("importrun_new_import")
    page = staff_client.get(url)
    assert page.status_code == 200
    assert b"Start the import" in page.content

    wrong_kind = staff_client.post(url, {"source": "openalex", "kind": "ids", "value": "x"})
    assert "OpenAlex imports take" in wrong_kind.content.decode()
    bad_orcid = staff_client.post(url, {"source": "openalex", "kind": "orcid", "value": "1234"})
    assert "Not a valid ORCID" in bad_orcid.content.decode()
    bad_dates = staff_client.post(
        url, {"source": "arxiv", "kind": "category", "value": "cs.LG 2024-02-01 2024-01-01"}
    )
    assert "must not be after" in bad_dates.content.decode()
    assert not ImportRun.objects.exists()


def test_new_import_form_queues_a_run(staff_client, staff, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = staff_client.post(
            admin("importrun_new_import"),
            {
                "source": "openalex",
                "kind": "dois",
                "value": "10.1000/ABC\nhttps://doi.org/10.1000/def\n",
            },
        )
    run = ImportRun.objects.get()
    assert response.status_code == 302
    assert response.url == admin("importrun_change", run.pk)
    assert (run.status, run.kind, run.requested_by) == ("queued", "dois", staff)
    assert run.parameters == {"dois": ["10.1000/abc", "10.1000/def"]}
    assert len(callbacks) == 1  # queued for the worker, not run here
    assert AuditEvent.objects.get().action == "import_run_create"
    page = staff_client.get(response.url)
    text = page.content.decode()
    assert f"Import #{run.pk} is asked for. Its status and progress are shown below." in text
    assert 'data-progress="status">Queued</span>' in text


def test_import_run_list_shows_progress_duration_and_error(
    staff_client, django_assert_max_num_queries
):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    for n in range(5):
        ImportRun.objects.create(
            source="openalex",
            kind="author",
            parameters={"id": f"A{n}"},
            status="failed",
            processed=50,
            total=200,
            counters={"created": 40, "problems": 1},
            started_at=now - timedelta(minutes=3, seconds=5),
            finished_at=now,
            error="OpenAlex answered HTTP 503 five times in a row",
        )
    with django_assert_max_num_queries(12):
        page = staff_client.get(admin("importrun_changelist"))
    text = page.content.decode()
    assert "50 / 200 (25%)" in text
    assert "took 3m 05s" in text
    assert "40 created<br>1 problem" in text
    assert "HTTP 503" in text
    assert admin("importrun_new_import") in text


def test_staff_retry_and_cancel_a_run_from_the_admin(
    staff_client, django_capture_on_commit_callbacks
):
    run = ImportRun.objects.create(source="openalex", kind="author", parameters={"id": "A1"})
    page = staff_client.get(admin("importrun_change", run.pk))
    assert admin("importrun_cancel", run.pk) in page.content.decode()
    assert staff_client.get(admin("importrun_cancel", run.pk)).status_code == 405
    staff_client.post(admin("importrun_cancel", run.pk))
    run.refresh_from_db()
    assert run.status == "cancelled"
    with django_capture_on_commit_callbacks():
        staff_client.post(
            admin("importrun_changelist"),
            {"action": "retry_runs", "_selected_action": [run.pk]},
        )
    run.refresh_from_db()
    assert run.status == "queued"


def test_problem_page_shows_the_payload_and_staff_can_ignore_it(staff_client):
    problem = ImportProblem.objects.create(
        source="openalex",
        external_id="https://openalex.org/W900000006",
        payload={"id": "https://openalex.org/W900000006", "title": None},
        error="work W900000006 has no title",
    )
    page = staff_client.get(admin("importproblem_change", problem.pk)).content.decode()
    assert "&quot;title&quot;: null" in page  # pretty-printed payload
    assert "has no title" in page
    assert admin("importproblem_retry", problem.pk) in page
    response = staff_client.post(admin("importproblem_ignore", problem.pk))
    assert response.status_code == 302
    problem.refresh_from_db()
    assert problem.status == "ignored"


def test_bulk_retry_of_problems_reports_what_landed(staff_client):
    good = ImportProblem.objects.create(
        source="openalex",
        payload=openalex_work(7, "Landed on retry", [("A5000000008", "Lise Meitner")]),
        error="old",
    )
    bad = ImportProblem.objects.create(source="openalex", payload={"id": "x"}, error="old")
    response = staff_client.post(
        admin("importproblem_changelist"),
        {"action": "retry_problems", "_selected_action": [good.pk, bad.pk]},
        follow=True,
    )
    text = response.content.decode()
    assert "1 record(s) imported." in text
    assert "1 record(s) failed again" in text
    assert Work.objects.filter(title="Landed on retry").exists()


def test_candidate_page_shows_both_works_side_by_side_and_keep_apart(staff_client, work_pair):
    candidate = MergeCandidate.objects.get()
    page = staff_client.get(admin("mergecandidate_change", candidate.pk)).content.decode()
    assert "Ada Lovelace" in page and "Charles Babbage" in page
    assert "W900000001" in page and "2006.00001" in page
    assert admin("mergecandidate_keep_apart", candidate.pk) in page
    response = staff_client.post(admin("mergecandidate_keep_apart", candidate.pk), follow=True)
    assert "Kept apart" in response.content.decode()
    candidate.refresh_from_db()
    assert candidate.status == "kept_apart"
    assert "See the audit event" in response.content.decode()


def test_candidate_merge_button_merges_authors(staff_client, two_adas):
    ada, namesake = two_adas
    candidate = MergeCandidate.objects.create(
        kind="author", author_a=ada, author_b=namesake, reason="Same name"
    )
    page = staff_client.get(admin("mergecandidate_change", candidate.pk)).content.decode()
    assert "The namesake&#x27;s work" in page and "A5000000001" in page
    staff_client.post(admin("mergecandidate_merge", candidate.pk))
    namesake.refresh_from_db()
    assert namesake.merged_into == ada


def test_candidate_list_puts_open_ones_first(staff_client, django_assert_max_num_queries):
    decided = MergeCandidate.objects.create(
        kind="work", work_a=WorkFactory(), work_b=WorkFactory(), reason="x", status="kept_apart"
    )
    for _ in range(3):
        MergeCandidate.objects.create(
            kind="work", work_a=WorkFactory(), work_b=WorkFactory(), reason="open one"
        )
    with django_assert_max_num_queries(12):
        page = staff_client.get(admin("mergecandidate_changelist"))
    rows = [c.pk for c in page.context["cl"].result_list]
    assert rows[-1] == decided.pk


def test_author_merge_page_previews_then_merges(staff_client, two_adas):
    ada, namesake = two_adas
    url = admin("author_merge", namesake.pk)
    choices = staff_client.get(url).content.decode()
    assert f"?target={ada.pk}" in choices  # the namesake is offered
    preview = staff_client.get(f"{url}?target={ada.pk}").content.decode()
    assert "The namesake&#x27;s work" in preview
    assert "list both already" in preview
    response = staff_client.post(url, {"target": ada.pk})
    assert response.status_code == 302
    namesake.refresh_from_db()
    assert namesake.merged_into == ada


def test_author_split_page_previews_then_splits(staff_client, hopper_works):
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    url = admin("author_split", grace.pk)
    assert "Sea shanties and lattices" in staff_client.get(url).content.decode()
    preview = staff_client.get(url, {"work": shanties.pk, "preview": "1"}).content.decode()
    assert "What the split does" in preview
    response = staff_client.post(url, {"work": shanties.pk, "new_name": "G. Hopper"})
    new = Author.objects.get(display_name="G. Hopper")
    assert response.url == admin("author_change", new.pk)
    assert list(new.works.all()) == [shanties]


def test_audit_event_page_offers_undo_once(staff_client, staff, two_adas):
    ada, namesake = two_adas
    event = curation.author_merge(source=namesake, target=ada, actor=staff)
    listing = staff_client.get(admin("auditevent_changelist")).content.decode()
    assert "Undo…" in listing
    page = staff_client.get(admin("auditevent_change", event.pk)).content.decode()
    assert admin("auditevent_undo", event.pk) in page
    staff_client.post(admin("auditevent_undo", event.pk))
    namesake.refresh_from_db()
    assert namesake.merged_into is None
    page = staff_client.get(admin("auditevent_change", event.pk)).content.decode()
    assert "Undone by" in page
    assert admin("auditevent_undo", event.pk) not in page


def curation_urls():
    """Every curation URL with the method it takes (ids need not exist: access is checked first)."""
    return [
        ("get", admin("importrun_new_import")),
        ("post", admin("importrun_new_import")),
        ("post", admin("importrun_retry", 1)),
        ("post", admin("importrun_cancel", 1)),
        ("post", admin("importproblem_retry", 1)),
        ("post", admin("importproblem_ignore", 1)),
        ("post", admin("mergecandidate_merge", 1)),
        ("post", admin("mergecandidate_keep_apart", 1)),
        ("get", admin("author_merge", 1)),
        ("post", admin("author_merge", 1)),
        ("get", admin("author_split", 1)),
        ("post", admin("author_split", 1)),
        ("post", admin("auditevent_undo", 1)),
        ("get", admin("mergecandidate_change", 1)),
        ("get", admin("auditevent_changelist")),
    ]


@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "not-staff"])
def test_people_who_are_not_staff_are_sent_to_log_in(client, logged_in):
    if logged_in:
        client.force_login(UserFactory(username="reader"))
    for method, url in curation_urls():
        response = getattr(client, method)(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("admin:login")), url


def test_staff_without_the_change_permission_cannot_decide(client, work_pair):
    viewer = UserFactory(username="viewer", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client.force_login(viewer)
    candidate = MergeCandidate.objects.get()
    page = client.get(admin("mergecandidate_change", candidate.pk)).content.decode()
    assert "Keep apart" not in page  # the page shows the records but no decision buttons
    assert client.post(admin("mergecandidate_keep_apart", candidate.pk)).status_code == 403
    assert client.get(admin("importrun_new_import")).status_code == 403

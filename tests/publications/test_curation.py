"""Staff curation: services that decide, the constraints imports obey, undo, and the admin pages."""

import json

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from publications import curation
from publications.importing import ingesting
from publications.importing.dispatch import import_run_create
from publications.importing.execution import import_run_execute
from publications.models import (
    AuditEvent,
    Author,
    AuthorInstitution,
    Authorship,
    ImportProblem,
    ImportRun,
    LinkConstraint,
    MergeCandidate,
    SourceRecord,
    Work,
)
from publications.records import MappingError
from publications.sources.openalex import mapping as openalex
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    UserFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db

TITLE = "Quantum widgets on a square lattice"


# People and records the tests talk about -------------------------------------


@pytest.fixture
def staff():
    return UserFactory(username="curator", is_staff=True, is_superuser=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def openalex_work(number: int, title: str, authors: list[tuple[str | None, str]], **extra) -> dict:
    """A minimal OpenAlex work: ``authors`` are (A id or None, display name)."""
    return {
        "id": f"https://openalex.org/W90000000{number}",
        "title": title,
        "publication_year": 2020,
        "publication_date": "2020-05-01",
        "type": "article",
        "cited_by_count": 3,
        "authorships": [
            {
                "author": {
                    "id": f"https://openalex.org/{author_id}" if author_id else None,
                    "display_name": name,
                }
            }
            for author_id, name in authors
        ],
        **extra,
    }


def arxiv_entry(arxiv_id: str, title: str, names: list[str], **extra) -> dict:
    return {
        "id": f"http://arxiv.org/abs/{arxiv_id}v1",
        "arxiv_id": arxiv_id,
        "title": title,
        "summary": "We study widgets.",
        "authors": [{"name": name, "affiliations": []} for name in names],
        "published": "2020-06-01T00:00:00Z",
        "updated": "2020-06-01T00:00:00Z",
        "primary_category": "cond-mat.str-el",
        "categories": ["cond-mat.str-el"],
        "links": [],
        **extra,
    }


def ingest(entity: str, *payloads: dict) -> None:
    """Import payloads the way a run does: map, then ingest."""
    for payload in payloads:
        ingesting.import_payload(run=None, entity=entity, payload=payload)


@pytest.fixture
def work_pair():
    """An OpenAlex work and an arXiv preprint of the same title by someone else: a candidate."""
    published = openalex_work(1, TITLE, [("A5000000001", "Ada Lovelace")])
    preprint = arxiv_entry("2006.00001", TITLE, ["Charles Babbage"])
    ingest("work", published)
    ingest("arxiv", preprint)
    return published, preprint


def authorships():
    """Every authorship with all its fields, to compare before and after."""
    rows = Authorship.objects.order_by("pk").values(
        "pk", "work_id", "author_id", "position", "raw_name", "raw_affiliation",
        "is_corresponding", "source", "confidence",
    )  # fmt: skip
    links = Authorship.institutions.through.objects.values_list("authorship_id", "institution_id")
    return list(rows), sorted(links)


# Merge candidates: works --------------------------------------------------------


def test_two_works_with_the_same_title_become_a_candidate(work_pair):
    candidate = MergeCandidate.objects.get()
    assert candidate.kind == "work"
    assert {candidate.work_a.openalex_id, candidate.work_b.arxiv_id} == {"W900000001", "2006.00001"}


def test_keep_apart_stores_a_constraint_and_the_next_import_raises_no_candidate(work_pair, staff):
    published, preprint = work_pair
    candidate = MergeCandidate.objects.get()
    event = curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)

    candidate.refresh_from_db()
    assert candidate.status == MergeCandidate.Status.KEPT_APART
    assert candidate.decided_by == staff
    constraint = LinkConstraint.objects.get()
    assert constraint.kind == LinkConstraint.Kind.CANNOT_LINK
    assert {constraint.work_id, constraint.other_work_id} == {
        candidate.work_a_id,
        candidate.work_b_id,
    }
    assert constraint.source == "staff"
    assert (event.actor, event.action) == (staff, "merge_candidate_keep_apart")

    # Both sources send updated records: they are written again, and the pair stays apart.
    ingest("work", {**published, "cited_by_count": 9})
    ingest("arxiv", {**preprint, "summary": "We study widgets again."})
    assert Work.objects.visible().count() == 2
    assert MergeCandidate.objects.count() == 1
    assert not MergeCandidate.objects.filter(status=MergeCandidate.Status.OPEN).exists()


def test_a_candidate_is_decided_once(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)
    with pytest.raises(ValueError, match="already decided"):
        curation.merge_candidate_merge(candidate=candidate, actor=staff)


def test_merging_works_moves_what_the_kept_one_lacks_and_imports_follow(work_pair, staff):
    published, preprint = work_pair
    candidate = MergeCandidate.objects.get()
    kept, other = candidate.work_a, candidate.work_b

    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)

    kept.refresh_from_db()
    other.refresh_from_db()
    assert other.merged_into == kept
    assert kept.arxiv_id == "2006.00001" and other.arxiv_id is None  # the unique id moved
    assert kept.abstract == "We study widgets."  # a blank filled from the other
    names = set(kept.authorships.values_list("author__display_name", flat=True))
    assert names == {"Ada Lovelace", "Charles Babbage"}
    assert set(kept.source_records.values_list("source", flat=True)) == {"openalex", "arxiv"}
    assert LinkConstraint.objects.filter(
        kind="must_link", work=kept, other_work=other, created_by=staff
    ).exists()
    candidate.refresh_from_db()
    assert candidate.status == MergeCandidate.Status.MERGED
    assert (event.action, event.actor) == ("work_merge", staff)

    ingest("arxiv", {**preprint, "summary": "A revised abstract."})
    ingest("work", {**published, "cited_by_count": 12})
    assert Work.objects.visible().count() == 1
    assert MergeCandidate.objects.filter(status="open").count() == 0
    assert set(kept.authorships.values_list("author__display_name", flat=True)) == names


def test_undoing_a_work_merge_puts_both_works_back(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    before = authorships()
    kept_id, other_id = candidate.work_a_id, candidate.work_b_id
    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)

    curation.audit_undo(event=event, actor=staff)

    kept, other = Work.objects.get(pk=kept_id), Work.objects.get(pk=other_id)
    assert other.merged_into is None
    assert (kept.arxiv_id, other.arxiv_id) == (None, "2006.00001")
    assert kept.abstract == ""
    assert authorships() == before
    assert set(other.source_records.values_list("source", flat=True)) == {"arxiv"}
    assert not LinkConstraint.objects.exists()
    candidate.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("open", None)


def test_keep_apart_can_be_undone_and_the_candidate_reopens(work_pair, staff):
    candidate = MergeCandidate.objects.get()
    event = curation.merge_candidate_keep_apart(candidate=candidate, actor=staff)
    undo = curation.audit_undo(event=event, actor=staff)
    candidate.refresh_from_db()
    assert candidate.status == "open"
    assert not LinkConstraint.objects.exists()
    assert (undo.action, undo.actor, undo.data["undoes"]) == ("audit_event_undo", staff, event.pk)


# Authors: merge -----------------------------------------------------------------


@pytest.fixture
def two_adas():
    """Ada (with an OpenAlex id) on works 1 and 2; a name-only Ada on works 2 and 3."""
    lab, other_lab = InstitutionFactory(), InstitutionFactory()
    ada = AuthorFactory(display_name="Ada Lovelace", openalex_id="A5000000001")
    namesake = AuthorFactory(display_name="Ada Lovelace", last_known_institution=other_lab)
    shared = WorkFactory(title="Shared work")
    AuthorshipFactory(author=ada, work=WorkFactory(title="Ada's own work"))
    AuthorshipFactory(author=ada, work=shared)
    duplicate = AuthorshipFactory(
        author=namesake, work=shared, position=1, source="arxiv", confidence=0.6
    )
    duplicate.institutions.add(lab)
    AuthorshipFactory(author=namesake, work=WorkFactory(title="The namesake's work"), position=2)
    AuthorInstitution.objects.create(author=ada, institution=lab)
    AuthorInstitution.objects.create(author=namesake, institution=lab, years=[2019])
    AuthorInstitution.objects.create(author=namesake, institution=other_lab, years=[2020])
    SourceRecord.objects.create(
        source="openalex", entity="author", external_id="A5000000009", payload={},
        content_hash="x", fetched_at="2024-01-01T00:00:00Z", author=namesake,
    )  # fmt: skip
    return ada, namesake


def test_author_merge_preview_shows_what_moves_and_what_conflicts(two_adas):
    ada, namesake = two_adas
    preview = curation.author_merge_preview(source=namesake, target=ada)
    assert [w.title for w in preview["works_moving"]] == ["The namesake's work"]
    assert [w.title for w in preview["conflicts"]] == ["Shared work"]
    assert (preview["affiliations_moving"], preview["affiliations_duplicate"]) == (1, 1)
    assert preview["source_records"] == 1
    assert preview["problems"] == []
    assert curation.author_merge_preview(source=ada, target=ada)["problems"]


def test_author_merge_moves_records_and_remembers_the_decision(two_adas, staff):
    ada, namesake = two_adas
    event = curation.author_merge(source=namesake, target=ada, actor=staff)

    namesake.refresh_from_db()
    ada.refresh_from_db()
    assert namesake.merged_into == ada
    assert set(ada.works.values_list("title", flat=True)) == {
        "Ada's own work",
        "Shared work",
        "The namesake's work",
    }
    assert not Authorship.objects.filter(author=namesake).exists()
    assert AuthorInstitution.objects.filter(author=ada).count() == 2
    assert SourceRecord.objects.get().author == ada
    assert ada.last_known_institution is not None  # filled from the namesake
    assert LinkConstraint.objects.filter(
        kind="must_link", author=ada, other_author=namesake
    ).exists()
    assert (event.actor, event.action, event.target_id) == (staff, "author_merge", str(ada.pk))
    deleted = event.data["deleted_authorships"]
    assert [(d["source"], d["confidence"], len(d["institutions"])) for d in deleted] == [
        ("arxiv", 0.6, 1)
    ]


def test_author_merge_then_undo_restores_every_authorship_exactly(two_adas, staff):
    ada, namesake = two_adas
    before = authorships()
    affiliations = sorted(
        AuthorInstitution.objects.values_list("pk", "author_id", "institution_id", "years")
    )
    event = curation.author_merge(source=namesake, target=ada, actor=staff)

    undo = curation.audit_undo(event=event, actor=staff)

    assert authorships() == before
    assert (
        sorted(AuthorInstitution.objects.values_list("pk", "author_id", "institution_id", "years"))
        == affiliations
    )
    assert SourceRecord.objects.get().author_id == namesake.pk
    namesake.refresh_from_db()
    ada.refresh_from_db()
    assert namesake.merged_into is None
    assert ada.last_known_institution is None
    assert not LinkConstraint.objects.exists()
    assert (undo.actor, undo.data["undoes"]) == (staff, event.pk)
    with pytest.raises(ValueError, match="already been undone"):
        curation.audit_undo(event=event, actor=staff)


def test_merging_an_author_candidate_delegates_to_author_merge(two_adas, staff):
    ada, namesake = two_adas
    candidate = MergeCandidate.objects.create(
        kind="author", author_a=ada, author_b=namesake, reason="Same name"
    )
    event = curation.merge_candidate_merge(candidate=candidate, actor=staff)
    candidate.refresh_from_db()
    namesake.refresh_from_db()
    assert (candidate.status, candidate.decided_by) == ("merged", staff)
    assert namesake.merged_into == ada
    assert event.action == "author_merge"
    curation.audit_undo(event=event, actor=staff)
    candidate.refresh_from_db()
    assert candidate.status == "open"


def test_merging_into_a_merged_record_is_refused(two_adas, staff):
    ada, namesake = two_adas
    curation.author_merge(source=namesake, target=ada, actor=staff)
    other = AuthorFactory()
    with pytest.raises(ValueError, match="merge into that record instead"):
        curation.author_merge(source=other, target=namesake, actor=staff)
    with pytest.raises(ValueError, match="cannot be merged into itself"):
        curation.author_merge(source=other, target=other, actor=staff)


# Authors: split -------------------------------------------------------------------


@pytest.fixture
def hopper_works():
    first = openalex_work(1, "Compilers for everyone", [("A5000000007", "Grace Hopper")])
    second = openalex_work(
        2, "Sea shanties and lattices", [("A5000000007", "Grace Hopper"), (None, "Ann Other")]
    )
    ingest("work", first, second)
    return first, second


def test_split_moves_the_works_to_a_new_record(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    preview = curation.author_split_preview(author=grace, work_ids=[shanties.pk])
    assert [w.pk for w in preview["works_moving"]] == [shanties.pk]
    assert preview["works_staying"] == 1

    new = curation.author_split(author=grace, work_ids=[shanties.pk], actor=staff)

    assert new.display_name == "Grace Hopper" and new.openalex_id is None
    assert list(new.works.all()) == [shanties]
    assert list(grace.works.values_list("title", flat=True)) == ["Compilers for everyone"]
    assert LinkConstraint.objects.filter(kind="cannot_link", author=grace, work=shanties).exists()
    assert LinkConstraint.objects.filter(
        kind="cannot_link", author=grace, other_author=new
    ).exists()
    event = AuditEvent.objects.get(action="author_split")
    assert (event.actor, event.data["new_author"]) == (staff, new.pk)


def test_after_a_split_a_reimport_does_not_put_the_works_back(hopper_works, staff):
    first, second = hopper_works
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    new = curation.author_split(
        author=grace, work_ids=[shanties.pk], actor=staff, new_name="G. Hopper"
    )

    # OpenAlex still credits A5000000007 with both works; the records changed, so they are rewritten.
    ingest("work", {**first, "cited_by_count": 40}, {**second, "cited_by_count": 41})

    assert not Authorship.objects.filter(author=grace, work=shanties).exists()
    assert Authorship.objects.filter(author=new, work=shanties).exists()
    assert Authorship.objects.filter(author=grace, work__openalex_id="W900000001").exists()
    assert not MergeCandidate.objects.filter(
        author_a__in=[grace, new], author_b__in=[grace, new]
    ).exists()


def test_undoing_a_split_gives_the_works_back(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    shanties = Work.objects.get(openalex_id="W900000002")
    before = authorships()
    new = curation.author_split(author=grace, work_ids=[shanties.pk], actor=staff)
    curation.audit_undo(event=AuditEvent.objects.get(action="author_split"), actor=staff)
    assert authorships() == before
    assert not Author.objects.filter(pk=new.pk).exists()
    assert not LinkConstraint.objects.exists()


def test_a_split_needs_works_of_that_author(hopper_works, staff):
    grace = Author.objects.get(openalex_id="A5000000007")
    with pytest.raises(ValueError, match="at least one work"):
        curation.author_split(author=grace, work_ids=[], actor=staff)
    with pytest.raises(ValueError, match="is not an author of work"):
        curation.author_split(author=grace, work_ids=[WorkFactory().pk], actor=staff)


def test_only_decisions_with_undo_data_can_be_undone(staff):
    run = curation.import_run_create(
        source="openalex", kind="author", parameters={"id": "A5017898742"}, actor=staff
    )
    event = AuditEvent.objects.get(action="import_run_create", target_id=str(run.pk))
    with pytest.raises(ValueError, match="cannot be undone"):
        curation.audit_undo(event=event, actor=staff)


# Import problems and runs -------------------------------------------------------


def run_file(path) -> ImportRun:
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


def test_retrying_a_problem_whose_payload_now_maps_imports_it(tmp_path, monkeypatch, staff):
    payload = openalex_work(5, "A record the old mapper choked on", [("A5000000005", "Rosalind F")])
    path = tmp_path / "work.json"
    path.write_text(json.dumps(payload))
    real_map_work = openalex.map_work

    def old_mapper(data):
        raise MappingError("work W900000005 has an authorship shape we did not know")

    monkeypatch.setattr(openalex, "map_work", old_mapper)
    run_file(path)
    problem = ImportProblem.objects.get()
    assert problem.status == "open" and not Work.objects.exists()

    monkeypatch.setattr(openalex, "map_work", real_map_work)  # the mapper was fixed
    assert curation.import_problem_retry(problem=problem, actor=staff) is None

    problem.refresh_from_db()
    assert (problem.status, problem.resolved_by) == ("retried", staff)
    work = Work.objects.get(openalex_id="W900000005")
    assert work.authorships.get().author.openalex_id == "A5000000005"
    event = AuditEvent.objects.get(action="import_problem_retry")
    assert (event.actor, event.data["succeeded"]) == (staff, True)


def test_a_retry_that_fails_again_keeps_the_problem_open_with_the_new_error(staff):
    problem = ImportProblem.objects.create(
        source="openalex",
        external_id="https://openalex.org/W900000006",
        payload={"id": "https://openalex.org/W900000006", "title": None},
        error="old error",
    )
    error = curation.import_problem_retry(problem=problem, actor=staff)
    assert "has no title" in error
    problem.refresh_from_db()
    assert (problem.status, problem.error) == ("open", error)
    assert AuditEvent.objects.get(action="import_problem_retry").data["succeeded"] is False


def test_a_problem_without_a_record_cannot_be_retried_but_can_be_ignored(staff):
    problem = ImportProblem.objects.create(
        source="openalex", raw_payload="<html>404</html>", error="HTTP 404"
    )
    with pytest.raises(ValueError, match="retry its import run"):
        curation.import_problem_retry(problem=problem, actor=staff)
    curation.import_problem_ignore(problem=problem, actor=staff)
    problem.refresh_from_db()
    assert (problem.status, problem.resolved_by) == ("ignored", staff)
    assert AuditEvent.objects.get(action="import_problem_ignore").actor == staff
    with pytest.raises(ValueError, match="already ignored"):
        curation.import_problem_ignore(problem=problem, actor=staff)


def test_run_decisions_by_staff_are_audited(staff, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        run = curation.import_run_create(
            source="arxiv", kind="ids", parameters={"ids": ["2006.00001"]}, actor=staff
        )
    assert len(callbacks) == 1  # the task is queued once the transaction commits
    assert (run.status, run.requested_by) == ("queued", staff)
    curation.import_run_cancel(run=run, actor=staff)
    run.refresh_from_db()
    assert run.status == "cancelled"
    with pytest.raises(ValueError, match="cannot be cancelled"):
        curation.import_run_cancel(run=run, actor=staff)
    with django_capture_on_commit_callbacks():
        curation.import_run_retry(run=run, actor=staff)
    run.refresh_from_db()
    assert run.status == "queued"
    with pytest.raises(ValueError, match="only failed or cancelled"):
        curation.import_run_retry(run=run, actor=staff)
    actions = list(AuditEvent.objects.order_by("pk").values_list("action", "actor"))
    assert actions == [
        ("import_run_create", staff.pk),
        ("import_run_cancel", staff.pk),
        ("import_run_retry", staff.pk),
    ]


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
            source="openalex", kind="author", parameters={"id": f"A{n}"}, status="failed",
            processed=50, total=200, counters={"created": 40, "problems": 1},
            started_at=now - timedelta(minutes=3, seconds=5), finished_at=now,
            error="OpenAlex answered HTTP 503 five times in a row",
        )  # fmt: skip
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
    candidate.refresh_from_db()
    assert candidate.status == "open"

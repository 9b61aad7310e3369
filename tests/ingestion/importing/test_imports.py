"""Import runs end to end: recorded responses through mappers and ingest into the database."""

import io
import json

import pytest
import responses
from django.core.management import call_command
from responses import matchers
from responses.registries import OrderedRegistry

from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    ImportProblem,
    ImportRun,
    MergeCandidate,
    SourceRecord,
    Work,
    WorkTopic,
)
from ingestion.importing import dispatch, pipeline, runs
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.sources.openalex import fetching as openalex
from tests.ingestion.importing.doubles import fails_on_call

pytestmark = pytest.mark.django_db

API = "https://api.openalex.org"
AUTHOR_WORKS = "openalex/works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json"
SNAPSHOT = "openalex/snapshot/works__updated_date=2021-11-03__part_000.jsonl"
CHECKERBOARD = "arxiv/legacy-2016/query__au-del_maestro_AND_ti-checkerboard__2016-10.atom.xml"


def run_files(*paths) -> ImportRun:
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


def counts():
    return (
        Work.objects.count(),
        Author.objects.count(),
        Authorship.objects.count(),
        WorkTopic.objects.count(),
        SourceRecord.objects.count(),
    )


def test_every_recorded_response_imports_or_is_quarantined(real_fixtures):
    files = sorted(p for p in real_fixtures.rglob("*") if p.is_file() and p.suffix != ".md")
    run = run_files(*files)
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    problems = list(ImportProblem.objects.filter(run=run))
    # A bad record met twice (in two files) is one problem seen twice.
    assert run.counters["problems"] == sum(p.seen_count for p in problems)
    assert all(p.error for p in problems)
    reasons = " | ".join(p.error for p in problems)
    assert "W4234567890 has no title" in reasons  # a paratext record with a null title
    assert "incorrect id format for abc" in reasons  # arXiv's HTTP 400 error feed
    assert "HTTP 404" in reasons  # OpenAlex's HTML 404 page
    assert "DOESNTEXIST is not a valid field" in reasons  # OpenAlex's JSON 400 body
    quarantined = {p.external_id for p in problems if p.external_id}
    assert "https://openalex.org/W4234567890" in quarantined
    assert ImportProblem.objects.filter(payload__isnull=False).exists()  # kept with payload
    assert Work.objects.count() > 200
    # Drifted layouts all landed: legacy snapshot venue, 2016 arXiv feed, deleted author.
    assert Work.objects.filter(venue__name="Healthcare quarterly (Toronto)").exists()
    assert Work.objects.filter(arxiv_id="cond-mat/0603029").exists()
    assert Author.objects.filter(openalex_id="A5317838346", is_deleted=True).exists()
    assert Author.objects.visible().filter(openalex_id="A5317838346").count() == 0


def test_a_second_identical_import_changes_nothing(real_fixtures):
    paths = [real_fixtures / AUTHOR_WORKS, real_fixtures / SNAPSHOT, real_fixtures / CHECKERBOARD]
    first = run_files(*paths)
    before = counts()
    second = run_files(*paths)
    assert counts() == before
    # 60 records; the arXiv preprint and the published version of one paper (same title,
    # year and first author) are two OpenAlex records of one batch and become one work.
    assert first.counters["created"] == 59
    assert first.counters["updated"] == 1
    assert second.counters == {"created": 0, "updated": 0, "unchanged": 60, "problems": 0}


def test_a_killed_run_resumes_from_its_cursor_without_duplicates(
    real_fixtures, settings, monkeypatch
):
    settings.IMPORT_BATCH_SIZE = 7
    real_write = pipeline.write_batch
    dies_after_first_batch = fails_on_call(real_write, 2, SystemExit("worker killed"))
    monkeypatch.setattr(pipeline, "write_batch", dies_after_first_batch)
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(real_fixtures / SNAPSHOT)]},
        queue=False,
    )
    with pytest.raises(SystemExit):
        import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == ImportRun.Status.RUNNING
    assert run.processed == 7
    assert Work.objects.count() == 7
    monkeypatch.setattr(pipeline, "write_batch", real_write)

    resumed = import_run_execute(run_id=run.pk)  # the redelivered task
    assert resumed.status == ImportRun.Status.SUCCEEDED
    assert resumed.processed == 50
    assert resumed.counters["created"] == 50
    assert Work.objects.count() == 50
    assert SourceRecord.objects.count() == 50


def test_a_malformed_record_is_quarantined_and_the_rest_lands(real_fixtures, tmp_path):
    records = [json.loads(line) for line in (real_fixtures / SNAPSHOT).read_text().splitlines()]
    records[3] = {**records[3], "title": None, "display_name": None}  # cannot be mapped
    records[5] = {
        **records[5],
        "publication_year": -3,
        "publication_date": None,
    }  # no year: refused when mapped, before anything is written
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    run = run_files(path)
    assert run.status == ImportRun.Status.SUCCEEDED
    assert Work.objects.count() == 48
    problems = {p.external_id: p for p in ImportProblem.objects.filter(run=run)}
    assert set(problems) == {records[5]["id"], records[3]["id"]}
    assert "publication_year is -3, not a year" in problems[records[5]["id"]].error
    assert "has no title" in problems[records[3]["id"]].error
    assert problems[records[3]["id"]].payload["id"] == records[3]["id"]
    assert problems[records[5]["id"]].payload == records[5]


ARXIV_ENTRY_AS_OPENALEX = {
    # Our own minimal OpenAlex-shaped record of the 2016 checkerboard paper, for the merge test.
    "id": "https://openalex.org/W1000000001",
    "doi": "https://doi.org/10.1103/physrevb.74.024520",
    "title": "From stripe to checkerboard order on the square lattice in the presence of quenched disorder",
    "publication_year": 2006,
    "publication_date": "2006-07-21",
    "type": "article",
    "cited_by_count": 12,
    "authorships": [
        {
            "author_position": "first",
            "author": {
                "id": "https://openalex.org/A1000000001",
                "display_name": "Adrian Del Maestro",
            },
        },
        {
            "author_position": "middle",
            "author": {"id": "https://openalex.org/A1000000002", "display_name": "Bernd Rosenow"},
        },
        {
            "author_position": "last",
            "author": {"id": "https://openalex.org/A1000000003", "display_name": "Subir Sachdev"},
        },
    ],
    "locations": [{"landing_page_url": "http://arxiv.org/abs/cond-mat/0603029", "source": None}],
}


def test_a_work_in_both_sources_becomes_one_work_with_both_ids(real_fixtures, tmp_path):
    path = tmp_path / "work.json"
    path.write_text(json.dumps(ARXIV_ENTRY_AS_OPENALEX))
    run_files(path)
    run_files(real_fixtures / CHECKERBOARD)
    work = Work.objects.get()
    assert work.openalex_id == "W1000000001"
    assert work.arxiv_id == "cond-mat/0603029"
    assert work.doi == "10.1103/physrevb.74.024520"
    assert work.cited_by_count == 12
    assert work.abstract.startswith("We discuss the effects of quenched disorder")
    assert work.provenance["abstract"] == "arxiv"
    assert work.provenance["cited_by_count"] == "openalex"
    names = list(
        work.authorships.order_by("position").values_list("author__openalex_id", flat=True)
    )
    assert names == ["A1000000001", "A1000000002", "A1000000003"]  # arXiv names resolved, not added
    assert Author.objects.count() == 3
    assert {s.source for s in work.source_records.all()} == {"openalex", "arxiv"}
    assert work.work_topics.filter(topic__key="arxiv:cond-mat.str-el").exists()


def test_a_same_named_stranger_is_a_merge_candidate_not_a_merge(real_fixtures, tmp_path):
    other = dict(
        ARXIV_ENTRY_AS_OPENALEX,
        id="https://openalex.org/W1000000009",
        doi=None,
        title="A different paper",
        locations=[],
    )
    other["authorships"] = [other["authorships"][1]]  # Bernd Rosenow alone
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    run_files(path)
    run_files(real_fixtures / CHECKERBOARD)
    rosenows = Author.objects.filter(normalized_name="bernd rosenow")
    assert rosenows.count() == 2
    candidate = MergeCandidate.objects.get(kind="author")
    assert {candidate.author_a_id, candidate.author_b_id} == set(
        rosenows.values_list("pk", flat=True)
    )


def test_openalex_rate_limit_then_outage_then_success_completes(
    real_fixtures, settings, monkeypatch
):
    monkeypatch.setattr(openalex, "RETRY_BACKOFF", 0)
    body = json.loads((real_fixtures / AUTHOR_WORKS).read_text())
    params = matchers.query_param_matcher(
        {"filter": "author.id:A5017898742", "per-page": "200", "cursor": "*"}, strict_match=False
    )
    run = import_run_create(
        source="openalex",
        kind="filter",
        parameters={"filter": {"author.id": "A5017898742"}},
        queue=False,
    )
    with responses.RequestsMock(registry=OrderedRegistry) as mock:
        mock.get(f"{API}/works", status=429, headers={"Retry-After": "0"}, match=[params])
        mock.get(f"{API}/works", status=503, match=[params])
        mock.get(f"{API}/works", json=body, match=[params])
        run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.SUCCEEDED
    # Nine records, eight papers: the arXiv preprint and the published version of one merge.
    assert run.counters["created"] == 8
    assert run.counters["updated"] == 1
    assert Author.objects.filter(openalex_id="A5017898742").exists()


def test_a_source_error_fails_the_run_with_the_reason_kept(settings, monkeypatch):
    monkeypatch.setattr(openalex, "RETRY_BACKOFF", 0)
    error = {"error": "Invalid query parameters error.", "message": "x is not a valid field."}
    run = import_run_create(
        source="openalex", kind="filter", parameters={"filter": {"x": "1"}}, queue=False
    )
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", status=400, json=error)
        run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.FAILED
    assert "x is not a valid field" in run.error
    problem = ImportProblem.objects.get(run=run)
    assert "x is not a valid field" in problem.raw_payload


def test_metrics_are_computed_for_the_touched_authors(
    real_fixtures, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        run_files(real_fixtures / AUTHOR_WORKS)
    assert callbacks  # follow-up work is queued after the batch commits
    author = Author.objects.get(openalex_id="A5017898742")
    assert author.metrics.works_count == 8  # nine records; a preprint merged with its paper
    assert author.metrics.computed_at is not None


def test_a_cancelled_run_stops_and_a_retry_resumes(real_fixtures, settings):
    settings.IMPORT_BATCH_SIZE = 10
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(real_fixtures / SNAPSHOT)]},
        queue=False,
    )
    runs.import_run_cancel(run=run)
    run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.CANCELLED
    assert Work.objects.count() == 0
    dispatch.import_run_retry(run=run)  # queued on commit; tasks run inline in tests
    run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.SUCCEEDED
    assert Work.objects.count() == 50


def test_bad_import_requests_are_refused_with_a_reason():
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="'orcid' is required"):
        import_run_create(source="openalex", kind="orcid", parameters={}, queue=False)
    with pytest.raises(ValidationError, match="arxiv imports take one of"):
        import_run_create(source="arxiv", kind="dois", parameters={"dois": ["x"]}, queue=False)
    with pytest.raises(ValidationError, match="No such file"):
        import_run_create(
            source="openalex", kind="file", parameters={"paths": ["/nope"]}, queue=False
        )


def test_an_import_run_from_the_command_line_is_audited(real_fixtures):
    call_command("import_file", str(real_fixtures / CHECKERBOARD), stdout=io.StringIO())
    run = ImportRun.objects.get()
    assert run.status == ImportRun.Status.SUCCEEDED
    event = AuditEvent.objects.get(action="import_run_create", target_id=str(run.pk))
    assert (event.actor, event.data["via"], event.data["kind"]) == (None, "command", "file")

"""Cited works not held here are named from OpenAlex after a run, batch by batch."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from catalogue.models import Citation, ReferencePreview
from ingestion import references
from ingestion.sources.openalex import fetching
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file

pytestmark = pytest.mark.django_db

WORKS = "https://api.openalex.org/works"


@pytest.fixture(autouse=True)
def _lookups_on(settings, monkeypatch):
    """These tests answer every look-up with `responses`; the suite's default is off."""
    settings.INSTITUTION_LOOKUP = True
    settings.OPENALEX_EMAIL = "team@example.org"
    settings.OPENALEX_API_KEY = ""
    monkeypatch.setattr(fetching, "RETRY_BACKOFF", 0)
    monkeypatch.setattr(fetching, "MAX_RETRIES", 1)


def cited_record(openalex_id: str) -> dict:
    number = openalex_id[1:]
    return {
        "id": f"https://openalex.org/{openalex_id}",
        "display_name": f"Cited work <i>{number}</i>",
        "publication_year": 1990 + int(number) % 30,
        "authorships": [
            {"author_position": "middle", "author": {"display_name": "Second Person"}},
            {"author_position": "first", "author": {"display_name": f"First {number}"}},
        ],
    }


def asked_ids(request) -> list[str]:
    query = parse_qs(urlsplit(request.url).query)
    return query["filter"][0].removeprefix("openalex:").split("|")


def answer_previews(rsps, record=cited_record):
    def reply(request):
        body = {"meta": {"count": 1}, "results": [record(i) for i in asked_ids(request)]}
        return 200, {}, json.dumps(body)

    rsps.add_callback(responses.GET, WORKS, callback=reply)


def citing(number: int, *cited: int | str) -> dict:
    ids = [c if isinstance(c, str) else f"https://openalex.org/W{c}" for c in cited]
    return openalex_work(number, f"Citing {number}", referenced_works=ids)


def test_a_run_names_the_works_it_cites_in_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(references, "BATCH", 2)
    with responses.RequestsMock() as rsps:
        answer_previews(rsps)
        run_file(tmp_path, openalex_page(citing(1, 101, 102, 103)))
        calls = [c.request for c in rsps.calls]
    assert [asked_ids(r) for r in calls] == [["W101", "W102"], ["W103"]]
    query = parse_qs(urlsplit(calls[0].url).query)
    assert query["select"] == ["id,display_name,publication_year,authorships"]
    assert query["per-page"] == ["2"]
    assert calls[0].headers["From"] == "team@example.org"  # the polite pool
    preview = ReferencePreview.objects.get(openalex_id="W102")
    assert (preview.title, preview.year, preview.first_author) == (
        "Cited work 102",
        1990 + 102 % 30,
        "First 102",
    )


def test_held_works_local_ids_and_recent_previews_are_not_asked_for(tmp_path):
    with responses.RequestsMock() as rsps:
        answer_previews(rsps)
        run_file(tmp_path, openalex_page(citing(2, 201), openalex_work(202, "Held")))
        run_file(tmp_path, openalex_page(citing(3, 201, 202, 203, "W8000000001")))
        asked = [asked_ids(c.request) for c in rsps.calls]
    assert asked == [["W201"], ["W203"]]


def test_the_work_page_names_the_cited_work_and_links_to_openalex(tmp_path, client):
    with responses.RequestsMock() as rsps:
        answer_previews(rsps)
        run_file(tmp_path, openalex_page(citing(4, 401, 402)))
    ReferencePreview.objects.filter(openalex_id="W402").update(title="", first_author="")
    work = Citation.objects.filter(cited_openalex_id="W401").get().citing
    page = client.get(work.get_absolute_url()).content.decode()
    assert (
        '<a class="external" href="https://openalex.org/W401" rel="noopener nofollow">'
        "Cited work 401</a>"
    ) in page
    assert f"({1990 + 401 % 30})" in page and "First 401" in page
    # An id OpenAlex did not name stays shown as it is.
    assert '>W402</a> <span class="muted">on OpenAlex, not held here' in page


HOSTILE = [
    (200, "not json at all"),
    (200, json.dumps({"meta": {}, "results": 5})),
    (200, json.dumps({"meta": {}, "results": [None, "x", 7]})),
    (200, json.dumps(["results"])),
    (200, "[" * 100_000 + "]" * 100_000),
    (400, json.dumps({"error": ["odd"], "message": "bad"})),
    (500, "busy"),
]


@pytest.mark.parametrize(("status", "body"), HOSTILE)
def test_a_failing_or_hostile_answer_leaves_the_bare_id(tmp_path, client, status, body):
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, WORKS, status=status, body=body)
        run = run_file(tmp_path, openalex_page(citing(5, 501)))
    assert run.status == "succeeded"
    assert not ReferencePreview.objects.exists()
    work = Citation.objects.get().citing
    response = client.get(work.get_absolute_url())
    assert response.status_code == 200
    assert ">W501</a>" in response.content.decode()


def test_hostile_values_are_cleaned_bounded_and_other_records_ignored():
    answer = [
        {
            "id": "https://openalex.org/W601",
            "display_name": "A\x00 <script>alert(1)</script>title\u202e " + "x" * 5000,
            "publication_year": 99999,
            "authorships": [{"author": {"display_name": None}, "raw_author_name": "Raw\x07 Name"}],
        },
        {"id": "https://openalex.org/W999", "display_name": "Not asked for"},
        {"id": ["W602"], "display_name": "No usable id"},
    ]
    assert references.previews_store(["W601", "W602"], answer) == 1
    named = ReferencePreview.objects.get(openalex_id="W601")
    assert named.title.startswith("A title x") and len(named.title) == 2000
    assert named.title.endswith("…") and "\x00" not in named.title and "\u202e" not in named.title
    assert (named.year, named.first_author) == (None, "Raw Name")
    unnamed = ReferencePreview.objects.get(openalex_id="W602")
    assert not unnamed.found
    assert not ReferencePreview.objects.filter(openalex_id="W999").exists()


def test_task_arguments_are_checked_before_anything_is_sent():
    with responses.RequestsMock() as rsps:  # no request may be made
        assert references.previews_fetch(openalex_ids="W1") == 0
        assert references.previews_fetch(openalex_ids=[None, "A12", "W8000000009", {}]) == 0
        assert not rsps.calls


def test_stored_previews_announce_the_citing_works(tmp_path):
    received = []

    def note(sender, work_ids, **kwargs):
        received.append(work_ids)

    references.reference_previews_stored.connect(note)
    try:
        with responses.RequestsMock() as rsps:
            answer_previews(rsps)
            run_file(tmp_path, openalex_page(citing(7, 701)))
    finally:
        references.reference_previews_stored.disconnect(note)
    assert received == [[Citation.objects.get(cited_openalex_id="W701").citing_id]]


def test_previews_are_off_with_the_other_look_ups(tmp_path, settings):
    settings.INSTITUTION_LOOKUP = False
    with responses.RequestsMock():  # any request fails the test
        run_file(tmp_path, openalex_page(citing(8, 801)))
    settings.INSTITUTION_LOOKUP = True
    settings.REFERENCE_PREVIEWS = False
    with responses.RequestsMock():
        run_file(tmp_path, openalex_page(citing(9, 901)))
    assert not ReferencePreview.objects.exists()


def test_real_work_records_are_read(real_fixtures):
    path = (
        real_fixtures
        / "openalex"
        / "works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json"
    )
    results = json.loads(path.read_text())["results"]
    ids = [r["id"].rsplit("/", 1)[-1] for r in results]
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, WORKS, json={"meta": {"count": len(results)}, "results": results})
        assert references.previews_fetch(openalex_ids=ids) == len(ids)
    for record in results:
        preview = ReferencePreview.objects.get(openalex_id=record["id"].rsplit("/", 1)[-1])
        assert preview.title and preview.year == record["publication_year"]
        assert preview.first_author == record["authorships"][0]["author"]["display_name"]

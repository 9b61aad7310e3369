"""Institutions an import saw get their homepage domain and ROR from OpenAlex records."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from catalogue.models import Institution
from ingestion import institutions
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file

pytestmark = pytest.mark.django_db


def authorship(number: int, *institution_ids: str, ror: bool = False) -> dict:
    return {
        "author": {"id": f"https://openalex.org/A{number}", "display_name": f"Person {number}"},
        "raw_author_name": f"Person {number}",
        "institutions": [
            {
                "id": f"https://openalex.org/{i}",
                "display_name": f"Institution {i}",
                **({"ror": f"https://ror.org/0{i[1:].lower():0>6}11"} if ror else {}),
            }
            for i in institution_ids
        ],
    }


def institution_record(openalex_id: str) -> dict:
    number = openalex_id[1:]
    return {
        "id": f"https://openalex.org/{openalex_id}",
        "display_name": f"Institution {openalex_id}",
        "ror": f"https://ror.org/0abc{number[-3:]:0>3}12",
        "homepage_url": f"https://www.inst{number}.example.edu/",
        "country_code": "ca",
        "type": "education",
    }


@pytest.fixture(autouse=True)
def _lookups_on(settings):
    """These tests answer every look-up with `responses`; the suite's default is off."""
    settings.INSTITUTION_LOOKUP = True


def answer_lookups(rsps):
    """Answer every institutions look-up from the records it asks for; return the calls."""

    def reply(request):
        query = parse_qs(urlsplit(request.url).query)
        ids = query["filter"][0].removeprefix("openalex_id:").split("|")
        body = {"meta": {"count": len(ids)}, "results": [institution_record(i) for i in ids]}
        return 200, {}, json.dumps(body)

    rsps.add_callback(responses.GET, institutions.URL, callback=reply)


def test_a_file_import_fills_the_domains_of_the_institutions_it_saw(tmp_path):
    work = openalex_work(
        1, "Joint work", authorships=[authorship(1, "I101"), authorship(2, "I102")]
    )
    with responses.RequestsMock() as rsps:
        answer_lookups(rsps)
        run_file(tmp_path, openalex_page(work))
        assert len(rsps.calls) == 1
    rows = Institution.objects.order_by("openalex_id")
    assert [(i.openalex_id, i.homepage_domain, i.ror) for i in rows] == [
        ("I101", "inst101.example.edu", "0abc10112"),
        ("I102", "inst102.example.edu", "0abc10212"),
    ]


def test_look_ups_are_batched_and_skip_institutions_already_complete(tmp_path, monkeypatch):
    monkeypatch.setattr(institutions, "BATCH", 2)
    people = [authorship(n, f"I{200 + n}") for n in range(5)]
    Institution.objects.create(
        name="Known", openalex_id="I200", ror="0known0012", homepage_domain="known.example.org"
    )
    with responses.RequestsMock() as rsps:
        answer_lookups(rsps)
        run_file(tmp_path, openalex_page(openalex_work(2, "Many places", authorships=people)))
        asked = [parse_qs(urlsplit(c.request.url).query)["filter"][0] for c in rsps.calls]
    assert asked == ["openalex_id:I201|I202", "openalex_id:I203|I204"]
    assert Institution.objects.filter(homepage_domain="").count() == 0


def test_an_unreachable_openalex_leaves_the_run_succeeded(tmp_path):
    work = openalex_work(3, "Offline", authorships=[authorship(3, "I301")])
    with responses.RequestsMock() as rsps:
        rsps.add(responses.GET, institutions.URL, status=503, body="busy")
        run = run_file(tmp_path, openalex_page(work))
    assert run.status == "succeeded"
    assert Institution.objects.get().homepage_domain == ""


def test_a_ror_another_institution_holds_is_not_given_twice(tmp_path):
    Institution.objects.create(name="Holder", ror="0abc40112")
    work = openalex_work(4, "Clash", authorships=[authorship(4, "I401")])
    with responses.RequestsMock() as rsps:
        answer_lookups(rsps)
        run_file(tmp_path, openalex_page(work))
    filled = Institution.objects.get(openalex_id="I401")
    assert (filled.homepage_domain, filled.ror) == ("inst401.example.edu", None)


def test_institution_records_in_a_recorded_file_fill_domain_and_ror(tmp_path, settings):
    settings.INSTITUTION_LOOKUP = False
    run_file(tmp_path, openalex_page(openalex_work(5, "Seen", authorships=[authorship(5, "I501")])))
    run_file(tmp_path, openalex_page(institution_record("I501")))
    filled = Institution.objects.get(openalex_id="I501")
    assert (filled.homepage_domain, filled.ror) == ("inst501.example.edu", "0abc50112")

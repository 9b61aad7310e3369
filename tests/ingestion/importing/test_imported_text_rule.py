"""Every imported string goes through the one cleaning rule, and stored payloads are bounded.

Codes (a language, an ISSN, a country, a licence, a type) are cleaned and
bounded like titles and names, and a code that is not one of its kind is not
kept. A source record keeps its payload with each string cut to the longest
text a mapping reads, so a 10 MB title costs 64 kB, and mapping the stored
payload again gives the record the first mapping gave.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import pytest

from catalogue.models import SourceRecord, Work
from catalogue.text import TEXT_WINDOW, TITLE_MAX
from exports.work import to_ris
from ingestion.ingest.payloads import bounded_strings, stored_payload
from ingestion.sources.openalex.entities import map_author
from ingestion.sources.openalex.mapping import map_work
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file

REAL = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "real" / "openalex"
SCRIPT = "<script>window.__x=1</script>"


def _venue(issn_l: str) -> dict:
    return {
        "source": {
            "id": "https://openalex.org/S1",
            "display_name": "Journal of Tests",
            "issn_l": issn_l,
            "type": f"journal{SCRIPT}",
        },
        "license": f"cc-by{SCRIPT}",
        "landing_page_url": "https://example.org/w",
    }


def _institution(country: str) -> dict:
    return {"id": "https://openalex.org/I1", "display_name": "Uni", "country_code": country}


def _work(number: int, *, language: str, issn_l: str, country: str) -> dict:
    work = openalex_work(number, f"Work {number}", language=language)
    work["primary_location"] = _venue(issn_l)
    work["authorships"][0]["institutions"] = [_institution(country)]
    return work


@pytest.mark.django_db
def test_codes_that_are_not_codes_are_not_kept(tmp_path):
    hostile = _work(1, language=SCRIPT, issn_l=f"{SCRIPT}1234", country="<b>France</b>")
    run_file(tmp_path, openalex_page(hostile))
    work = Work.objects.select_related("venue").get(openalex_id="W1")
    assert work.language == ""
    assert work.venue.issn_l == ""
    assert "<" not in work.venue.type and "<" not in work.license
    institution = work.authorships.get().institutions.get()
    assert institution.country_code == ""
    assert "<" not in to_ris(work) and "__x" not in to_ris(work)


@pytest.mark.django_db
def test_real_codes_are_kept_in_their_usual_form(tmp_path):
    run_file(tmp_path, openalex_page(_work(2, language="pt-BR", issn_l="1234567x", country="us")))
    work = Work.objects.select_related("venue").get(openalex_id="W2")
    assert work.language == "pt-BR"
    assert work.venue.issn_l == "1234-567X"
    assert work.authorships.get().institutions.get().country_code == "US"
    assert "LA  - pt-BR" in to_ris(work)


def _strings(value, where="record"):
    """Every string a mapped record holds, with where it is."""
    if isinstance(value, str):
        yield where, value
    elif dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            yield from _strings(getattr(value, field.name), f"{where}.{field.name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple | set):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def _poisoned(value, key=None):
    """``value`` with markup and controls around every string but the ids."""
    if isinstance(value, dict):
        return {k: _poisoned(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_poisoned(v, key) for v in value]
    kept = key in ("id", "doi", "orcid", "ror") or str(key).endswith(("date", "updated", "created"))
    if isinstance(value, str) and not kept:
        return f"{SCRIPT}\x00{value}\u202e<img src=x onerror=alert(1)>"
    return value


def _real_works() -> list[dict]:
    works = []
    for path in sorted(REAL.glob("works__*.json")):
        document = json.loads(path.read_text())
        works += document.get("results", [document]) if isinstance(document, dict) else []
    return [w for w in works if isinstance(w, dict) and w.get("title")][:20]


def test_no_string_of_a_mapped_work_keeps_markup_or_controls():
    works = _real_works() or [_work(3, language="en", issn_l="1234-5678", country="FR")]
    for payload in works:
        record = map_work(_poisoned(payload))
        for where, text in _strings(record):
            assert "<script" not in text and "onerror" not in text, (where, text)
            assert "\x00" not in text and "\u202e" not in text, (where, text)


def test_the_real_records_are_the_ones_mapped_here():
    if not REAL.is_dir():
        pytest.skip("the real recordings are not beside the project (../shared/fixtures/real)")
    assert len(_real_works()) >= 5


# Bounded payloads -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_huge_title_is_kept_to_the_window_and_maps_again_the_same(tmp_path, suffix):
    title = "A " + "very " * 2_100_000 + "long title"  # 10.5 MB
    payload = openalex_work(4, title)
    text = openalex_page(payload) if suffix == ".json" else json.dumps(payload) + "\n"
    run_file(tmp_path, text, suffix=suffix)
    stored = SourceRecord.objects.get(external_id="W4").payload
    assert len(stored["title"]) == len(stored["display_name"]) == TEXT_WINDOW
    assert len(json.dumps(stored)) < 3 * TEXT_WINDOW
    assert map_work(stored) == map_work(payload)
    assert len(Work.objects.get(openalex_id="W4").title) == TITLE_MAX


@pytest.mark.django_db
def test_an_author_record_keeps_a_bounded_payload(tmp_path):
    name = "Ada " * 3_000_000
    author = {
        "id": "https://openalex.org/A77",
        "display_name": name,
        "works_count": 1,
        "cited_by_count": 0,
    }
    run_file(tmp_path, json.dumps(author))
    stored = SourceRecord.objects.get(external_id="A77").payload
    assert len(stored["display_name"]) == TEXT_WINDOW
    assert map_author(stored).display_name == map_author(author).display_name


def test_a_payload_without_long_strings_is_kept_as_it_is():
    payload = openalex_work(5, "Short", abstract_inverted_index={"word " * 10: list(range(9000))})
    kept, text = stored_payload(payload)
    assert kept is payload
    assert json.loads(text) == payload


def test_bounding_copies_any_depth_and_keys_too():
    deep: list = ["x" * 10]
    for _ in range(20_000):
        deep = [deep]
    assert bounded_strings(deep, 4) is not deep
    value = {"k" * 10: ["v" * 10, 7, None, {"n": True}]}
    assert bounded_strings(value, 3) == {"kkk": ["vvv", 7, None, {"n": True}]}
    assert value == copy.deepcopy(value)

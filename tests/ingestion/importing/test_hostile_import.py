"""Hostile records import without a failed run or a lost good record, and show nothing hostile.

Runs on SQLite and, with DATABASE_URL, on PostgreSQL (which refuses NUL in text
and jsonb): the same import runs through the run machinery on both.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from catalogue.links import http_url
from catalogue.models import Author, ImportProblem, ImportRun, SourceRecord, Work
from catalogue.text import ABSTRACT_MAX, TEXT_WINDOW, TITLE_MAX, clean
from ingestion.importing.dispatch import import_run_create, import_run_retry
from ingestion.importing.execution import import_run_execute
from ingestion.importing.quarantine import kept_payload
from ingestion.ingest.payloads import bounded_strings
from tests.hostile import (
    BIG_BYLINE,
    HOSTILE_ARXIV,
    NESTED,
    big_byline_work,
    good_works,
    hostile_arxiv_feed,
    write_bomb,
    write_hostile_snapshot,
)
from tests.hostile_pages import export_urls, feed_urls, raw_rows, record_pages

pytestmark = pytest.mark.django_db

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
BAD_SCHEME = re.compile(r"^(javascript|data|vbscript):")
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "poster", "srcset"}


def run_files(*paths) -> ImportRun:
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )
    return import_run_execute(run_id=run.pk)


@pytest.fixture
def imported(tmp_path):
    expected = write_hostile_snapshot(tmp_path / "works.jsonl")
    feed = tmp_path / "feed.xml"
    feed.write_text(hostile_arxiv_feed(), encoding="utf-8")
    run = run_files(tmp_path / "works.jsonl", feed)
    return run, expected


# The import ------------------------------------------------------------------


def test_the_run_ends_done_with_every_good_record(imported):
    run, expected = imported
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    stored = set(Work.objects.values_list("openalex_id", flat=True))
    assert set(expected["good_works"]) <= stored
    assert set(HOSTILE_ARXIV["good"]) <= set(Work.objects.values_list("arxiv_id", flat=True))
    assert set(expected["good_authors"]) <= set(
        Author.objects.values_list("openalex_id", flat=True)
    )
    assert not set(expected["poison"]) & stored


def test_every_poison_record_is_a_problem_that_keeps_its_payload(imported):
    run, expected = imported
    problems = list(ImportProblem.objects.filter(run=run))
    assert len(problems) == expected["problems"] == run.counters["problems"]
    by_id = {p.external_id.rsplit("/", 1)[-1]: p for p in problems if p.external_id}
    for short_id in expected["poison"]:
        kept = kept_payload(by_id[short_id].payload, by_id[short_id].raw_payload)
        assert kept["id"].endswith(short_id), by_id[short_id].error
    lines = [p for p in problems if not p.external_id]
    assert len(lines) == expected["poison_lines"]
    assert all(p.raw_payload for p in lines)  # the whole line, to read and fix


def test_a_record_with_two_works_identifiers_is_a_problem_and_changes_nothing(imported):
    run, expected = imported
    (short_id,) = expected["conflicts"]
    problem = ImportProblem.objects.get(run=run, external_id__endswith=short_id)
    assert "belongs to another work" in problem.error
    assert kept_payload(problem.payload, problem.raw_payload)["doi"].endswith("hostile-nine")
    assert not Work.objects.filter(title__contains="identifiers twelve").exists()
    nine = Work.objects.get(openalex_id="W990009")
    assert nine.doi == "10.5555/hostile-nine" and not nine.arxiv_id


def test_no_code_keeps_markup(imported):
    work = Work.objects.select_related("venue").get(title__contains="codes with markup")
    assert work.language == ""
    assert work.venue.issn_l == "1234-5678" and "<" not in work.venue.type


def test_a_work_of_thousands_of_authors_keeps_them_all_and_its_pages_stay_small(
    tmp_path, admin_client, django_assert_max_num_queries
):
    path = tmp_path / "collaboration.json"
    path.write_text(json.dumps(big_byline_work()))
    run = run_files(path)
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    work = Work.objects.get(title__contains="collaboration of")
    assert work.authorships.count() == BIG_BYLINE
    pages = [
        work.get_absolute_url(),
        work.get_absolute_url() + "?authors=all",
        reverse("admin:publications_work_change", args=[work.pk]),
        f"/api/v1/works/{work.pk}/",
    ]
    for url in pages:
        with django_assert_max_num_queries(80):
            response = admin_client.get(url)
        assert response.status_code == 200, url
        assert len(response.content) < 400_000, (url, len(response.content))
        assert "<script>alert" not in response.content.decode()


def test_a_kept_nul_comes_back_exactly(imported):
    run, _ = imported
    problem = ImportProblem.objects.get(run=run, external_id__endswith="W990101")
    assert problem.payload is None  # jsonb cannot hold its NUL: kept as JSON text
    assert (
        "\u0000"
        in kept_payload(problem.payload, problem.raw_payload)["authorships"][0]["raw_author_name"]
    )
    assert kept_payload(problem.payload, problem.raw_payload)["title"] == 12345


def test_a_good_record_keeps_its_payload_each_string_to_the_window(imported):
    originals = {w["id"].rsplit("/", 1)[-1]: w for w in good_works()}
    for short_id in ("W990006", "W990007", "W990004"):
        record = SourceRecord.objects.get(source="openalex", external_id=short_id)
        # NUL, 10**30, 2**63 + 1 kept; a 100k title kept to the longest text a mapping reads
        assert record.payload == bounded_strings(originals[short_id], TEXT_WINDOW)
    assert len(SourceRecord.objects.get(external_id="W990004").payload["title"]) == TEXT_WINDOW
    assert SourceRecord.objects.get(external_id="W990006").payload["x_unread"] == 10**30


def test_a_retried_run_does_not_fail_again_at_the_same_records(imported):
    run, expected = imported
    run.status = ImportRun.Status.FAILED  # as if stopped by something else
    run.save(update_fields=["status"])
    import_run_retry(run=run)
    run = import_run_execute(run_id=run.pk)
    assert run.status == ImportRun.Status.SUCCEEDED
    assert ImportProblem.objects.filter(run=run).count() == expected["problems"]


def test_a_fresh_run_of_the_same_file_records_the_problems_again_and_nothing_fails(tmp_path):
    expected = write_hostile_snapshot(tmp_path / "works.jsonl")
    first = run_files(tmp_path / "works.jsonl")
    second = run_files(tmp_path / "works.jsonl")
    assert first.status == second.status == ImportRun.Status.SUCCEEDED
    assert second.counters["unchanged"] >= len(expected["good_works"])


def test_a_bomb_and_a_nested_file_in_the_run_are_one_problem_each(tmp_path):
    bombed = write_bomb(tmp_path / "bomb.jsonl.gz")
    (tmp_path / "nested.json").write_text(NESTED)
    expected = write_hostile_snapshot(tmp_path / "works.jsonl")
    run = run_files(tmp_path / "bomb.jsonl.gz", tmp_path / "nested.json", tmp_path / "works.jsonl")
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.counters["problems"] == expected["problems"] + 2
    stored = set(Work.objects.values_list("openalex_id", flat=True))
    assert set(bombed["good_works"] + expected["good_works"]) <= stored
    errors = ImportProblem.objects.filter(run=run).values_list("error", flat=True)
    assert any("bomb.jsonl.gz line 2" in e and "IMPORT_MAX_LINE_BYTES" in e for e in errors)
    assert any("nested.json" in e and "nested too deeply" in e for e in errors)


def test_stored_text_is_clean_and_bounded(imported):
    for work in Work.objects.all():
        for value in (work.title, work.abstract, work.comments):
            assert not CONTROL.search(value), value[:80]
        assert len(work.title) <= TITLE_MAX and len(work.abstract) <= ABSTRACT_MAX
        for url in (work.pdf_url, work.landing_url, work.code_url, work.oa_url):
            assert http_url(url)[0] == url
    long = Work.objects.get(openalex_id="W990004")
    assert len(long.title) == TITLE_MAX and long.title.endswith("…")
    for author in Author.objects.all():
        assert not CONTROL.search(author.display_name) and "<" not in author.display_name


def test_each_dropped_link_is_noted_in_the_provenance(imported):
    for arxiv_id, fields in HOSTILE_ARXIV["dropped"].items():
        notes = Work.objects.get(arxiv_id=arxiv_id).provenance["dropped"]
        for name in fields:
            assert notes[name] == {"source": "arxiv", "reason": "not an http(s) address"}
    work = Work.objects.get(openalex_id="W990001")
    dropped = {"pdf_url", "landing_url", "oa_url", "venue.homepage_url"}
    assert set(work.provenance["dropped"]) == dropped
    assert work.venue.homepage_url == ""


def test_the_work_page_says_which_link_was_not_kept(client, imported):
    work = Work.objects.get(openalex_id="W990001")
    page = client.get(work.get_absolute_url()).content.decode()
    assert "not kept from OpenAlex: not an http(s) address" in page


# What pages, feeds, exports and the API show ---------------------------------


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.script_text: list[str] = []
        self.json_ld: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))
        self._in_script = tag == "script"
        if self._in_script and dict(attrs).get("type") == "application/ld+json":
            self.json_ld.append("")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            kind = dict(self.found[-1][1]).get("type") if self.found else None
            if kind == "application/ld+json":  # data: checked as JSON below
                self.json_ld[-1] += data
            else:
                self.script_text.append(data)


def assert_harmless_html(body: str, where: str) -> None:
    assert not CONTROL.search(body), f"{where}: a control character"
    parser = _Elements()
    parser.feed(body)
    for tag, attrs in parser.found:
        names = {name.lower(): value or "" for name, value in attrs}
        assert not any(n.startswith("on") for n in names), f"{where}: <{tag} {names}>"
        if tag == "script":
            assert names.get("src") or names.get("type") == "application/ld+json", where
        for name in URL_ATTRIBUTES & set(names):
            value = re.sub(r"[\x00-\x20]", "", names[name]).lower()
            assert not BAD_SCHEME.match(value), f"{where}: {tag} {name}={names[name]!r}"
    for text in parser.script_text:
        assert "alert(" not in text, f"{where}: data inside a script element"
    # JSON-LD is read up to the first "</script": each body must be whole JSON holding no "<".
    for body in parser.json_ld:
        assert "<" not in body, f"{where}: '<' inside JSON-LD"
        json.loads(body)


# Where an export or the API gives an address: RIS link tags, BibTeX url fields, JSON *url keys.
EXPORT_URLS = re.compile(r"^(?:UR|L[1-4])  - (.*?)\r?$|\burl\s*=\s*\{([^}]*)\}", re.M | re.I)
JSON_URLS = re.compile(r'"\w*url"\s*:\s*"([^"]*)"', re.I)  # CSL-JSON says "URL"


def assert_harmless_text(body: str, where: str) -> None:
    """No control or bidi character, no markup, and every address an http(s) one."""
    assert not CONTROL.search(body.replace("\r\n", "\n")), f"{where}: a control character"
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", body), f"{where}: a bidi control"
    assert "<script" not in body.lower(), where
    assert_web_addresses_only(body, where)


def assert_web_addresses_only(body: str, where: str) -> None:
    addresses = [a or b for a, b in EXPORT_URLS.findall(body)] + JSON_URLS.findall(body)
    for address in addresses:
        if address and not address.startswith("/"):  # the API's own paths
            assert http_url(address)[0], f"{where}: address {address!r}"


def assert_harmless_feed(body: bytes, where: str) -> None:
    root = ElementTree.fromstring(body)  # well-formed XML, or this raises
    text = body.decode()
    assert not CONTROL.search(text), where
    for element in root.iter():
        href = element.get("href")
        if href is not None:
            assert http_url(href)[0], f"{where}: link {href!r}"
    assert "<script" not in text.lower()


def hostile_works():
    return Work.objects.filter(title__startswith="Hostile").order_by("pk")


def test_every_page_shows_the_records_harmlessly(client, imported):
    works = list(hostile_works())
    assert len(works) == len(good_works()) + len(HOSTILE_ARXIV["good"])
    pages = record_pages(works)
    for prefix in ("/institutions/", "/venues/", "/topics/", "/researchers/"):
        assert any(p.startswith(prefix) for p in pages), prefix  # the walk reaches them all
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        assert_harmless_html(response.content.decode(), url)


def test_every_feed_and_export_is_harmless(client, imported):
    works = list(hostile_works())
    for url in feed_urls(works):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_harmless_feed(response.content, url)
    for url in export_urls(works):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.getvalue().decode()  # whole lists are streamed
        assert_harmless_text(body, url)
        if url.split("?")[0].endswith(".json"):
            assert json.loads(body), url  # CSL-JSON: a whole list, not cut by a bad record


def test_the_api_serves_no_hostile_link_or_character(client, imported):
    listing = client.get("/api/v1/works/?page_size=100")
    assert listing.status_code == 200
    assert_harmless_text(listing.content.decode(), "work list")
    for work in hostile_works():
        response = client.get(f"/api/v1/works/{work.pk}/")
        assert response.status_code == 200
        body = response.content.decode()
        assert_harmless_text(body, f"work {work.pk}")
        data = json.loads(body)
        for name in ("pdf_url", "landing_url", "code_url"):
            assert data[name] is None or http_url(data[name])[0] == data[name]


def test_rows_stored_before_the_check_are_not_served_or_linked(client):
    from tests.factories import WorkFactory

    work = WorkFactory(pdf_url="javascript:alert(1)", landing_url=" data:text/html,x")
    data = client.get(f"/api/v1/works/{work.pk}/").json()
    # The API says null for an address it does not serve, as for any value it lacks.
    assert data["pdf_url"] is None and data["landing_url"] is None
    page = client.get(work.get_absolute_url()).content.decode()
    assert_harmless_html(page, "work page")


def test_rows_holding_markup_that_closes_a_script_show_it_as_text_everywhere(client):
    work = raw_rows()
    pages = record_pages([work])
    assert len(pages) >= 8  # work, researcher, institution, venue, topic, explorers...
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        assert_harmless_html(response.content.decode(), url)
    for url in export_urls([work]) + feed_urls([work]):
        response = client.get(url)
        assert response.status_code == 200, url
        if url.endswith(".atom"):
            assert_harmless_feed(response.content, url)
        else:  # a download is text for a reference manager: its addresses are what could run
            assert_web_addresses_only(response.getvalue().decode(), url)


def test_a_bell_in_a_name_no_longer_breaks_the_feed_of_coauthors(client, tmp_path):
    work = {**good_works()[0], "id": "https://openalex.org/W990900"}
    work["authorships"] = [
        {"author": {"id": "https://openalex.org/A990901", "display_name": "Bel\u0007l Ringer"}},
        {"author": {"id": "https://openalex.org/A990902", "display_name": "Co Author"}},
    ]
    path = tmp_path / "works.jsonl"
    path.write_text(json.dumps(work) + "\n" + json.dumps(good_works()[1]) + "\n")
    assert run_files(path).status == ImportRun.Status.SUCCEEDED
    assert Author.objects.get(openalex_id="A990901").display_name == "Bell Ringer"
    coauthor = Author.objects.get(openalex_id="A990902")
    response = client.get(reverse("profiles:researcher_feed", args=[coauthor.pk]))
    assert response.status_code == 200
    assert_harmless_feed(response.content, "co-author feed")


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("Ann\u0000 Bell", "Ann Bell"),
        ("a\u0007b\u001bc\u0085d\u009be", "abc de"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("cr\r\nlf\rmac", "cr\nlf\nmac"),
        ("lone \ud800 surrogate", "lone  surrogate"),
        (42, ""),
    ],
)
def test_clean_drops_nul_and_controls_but_tab_and_newline(raw, kept):
    assert clean(raw) == kept


def test_the_database_refuses_a_title_past_its_bound():
    from django.db import IntegrityError, transaction

    from tests.factories import WorkFactory

    with pytest.raises(IntegrityError), transaction.atomic():
        WorkFactory(title="x" * (TITLE_MAX + 1), normalized_title="x")
    assert WorkFactory(title="x" * TITLE_MAX, normalized_title="x").pk

"""Reading recorded responses (``manage.py import_file``) from the real fixtures."""

import base64
import gzip
import json

import pytest
import yaml

from ingestion.records import MappingError, Page, SourceError
from ingestion.sources.files import describe_request, read_file
from ingestion.sources.openalex.mapping import map_work

READABLE = {".json", ".jsonl", ".xml", ".yml", ".yaml", ".gz"}


def items(path):
    return list(read_file(path))


def only(path):
    found = items(path)
    assert len(found) == 1, found
    return found[0]


def oa(real_fixtures, name):
    return real_fixtures / "openalex" / name


def cassette(real_fixtures, name):
    return real_fixtures / "openalex" / "cassettes" / name


def test_every_recorded_file_reads_into_pages_or_source_errors(real_fixtures):
    files = [p for p in sorted(real_fixtures.rglob("*")) if p.suffix in READABLE]
    assert len(files) >= 30
    for path in files:
        found = items(path)
        assert found, path
        assert all(isinstance(item, Page | SourceError) for item in found), path
        for page in (i for i in found if isinstance(i, Page)):
            assert all(isinstance(p, dict) for p in page.payloads), path
            json.dumps(page.payloads)


def test_single_work_file(real_fixtures):
    page = only(oa(real_fixtures, "works__W2741809807__2025-06.json"))

    assert page.entity == "work"
    assert map_work(page.payloads[0]).doi == "10.7717/peerj.4375"


def test_list_page_file_gives_total(real_fixtures):
    name = "works__filter-authorships.author.id-A5017898742__per_page-5__page-1-of-2__2025-10.json"
    page = only(oa(real_fixtures, name))

    assert (page.entity, len(page.payloads), page.total) == ("work", 5, 9)


@pytest.mark.parametrize(
    ("name", "entity"),
    [
        ("authors__A5317838346__deleted-author__2025-06.json", "author"),
        ("authors__A5023888391__jason-priem__2023-10__legacy-schema.json", "author"),
        ("authors__search-mearman__per_page-20__2025-10.json", "author"),
        ("institutions__I161548249__bangor-university__2025-10.json", "institution"),
        ("sources__S4306400194__arxiv__2025-10.json", "venue"),
        ("topics__T11636__2025-06.json", "topic"),
        ("concepts__C41008148__computer-science__2025-10.json", "concept"),
    ],
)
def test_entity_kind_comes_from_the_ids(real_fixtures, name, entity):
    assert only(oa(real_fixtures, name)).entity == entity


def test_snapshot_json_lines(real_fixtures):
    page = only(oa(real_fixtures, "snapshot/works__updated_date=2021-11-03__part_000.jsonl"))

    assert (page.entity, len(page.payloads)) == ("work", 50)
    assert page.payloads[0]["id"] == "https://openalex.org/W1612067013"


def test_gzipped_snapshot_is_found_by_magic_bytes(real_fixtures, tmp_path):
    source = oa(real_fixtures, "snapshot/works__updated_date=2021-11-03__part_000.jsonl")
    target = tmp_path / "part_000"  # no extension, as in the S3 snapshot
    target.write_bytes(gzip.compress(source.read_bytes()))

    page = only(target)

    assert (page.entity, len(page.payloads)) == ("work", 50)


def test_json_lines_come_in_batches(real_fixtures, tmp_path, monkeypatch):
    monkeypatch.setattr("ingestion.sources.files.BATCH", 20)
    source = oa(real_fixtures, "snapshot/works__updated_date=2021-11-03__part_000.jsonl")

    assert [len(p.payloads) for p in read_file(source)] == [20, 20, 10]


def test_recorded_openalex_error_json_is_a_source_error(real_fixtures):
    error = only(oa(real_fixtures, "errors__works__filter-DOESNTEXIST__http-400__2025-11.json"))

    assert isinstance(error, SourceError)
    assert "DOESNTEXIST is not a valid field" in str(error)
    assert str(error).startswith("errors__works__filter-DOESNTEXIST__http-400__2025-11.json: ")
    assert json.loads(error.body)["error"] == "Invalid query parameters error."


def test_r_vcr_cassette_pages(real_fixtures):
    found = items(cassette(real_fixtures, "openalexPro__oa_snowball.yml"))

    assert all(isinstance(i, Page) and i.entity == "work" for i in found)
    assert [(len(p.payloads), p.total) for p in found] == [
        (1, 2),
        (2, 2),
        (1, 5),
        (5, 5),
        (1, 38),
        (38, 38),
    ]


def test_r_vcr_cassette_errors_then_pages(real_fixtures):
    found = items(cassette(real_fixtures, "openalexPro__pro_snowball.yml"))

    errors, found_pages = found[:2], found[2:]
    assert all(isinstance(e, SourceError) and e.status == 400 for e in errors)
    assert "DOESNTEXIST is not a valid field" in str(errors[0])
    assert "DOESNTEXIST is not a valid select field" in str(errors[1])
    assert "<api-key>" not in str(errors[0])
    assert [len(p.payloads) for p in found_pages] == [2, 2, 0]  # paging ends on an empty page


def test_null_title_cassette_reads_and_mapping_rejects_it(real_fixtures):
    page = only(cassette(real_fixtures, "openalexPro__api_call_200.yml"))

    assert page.entity == "work"
    with pytest.raises(MappingError, match="W4234567890 has no title"):
        map_work(page.payloads[0])


def test_vcrpy_404_html_is_a_source_error(real_fixtures):
    error = only(
        cassette(real_fixtures, "paperqa__test_does_openalex_work__not-in-openalex-404.yaml")
    )

    assert isinstance(error, SourceError)
    assert error.status == 404
    assert "OpenAlex has no work https://doi.org/10.1046/j.1365-2699.2003.00795 (HTTP 404)" in str(
        error
    )
    assert "<title>404 Not Found</title>" in error.body


def test_vcrpy_gzip_body_and_other_hosts_skipped(real_fixtures):
    # Crossref, Semantic Scholar and Unpaywall answers in the same cassette are ignored.
    page = only(cassette(real_fixtures, "paperqa__test_title_search__paperqa.yaml"))

    assert page.entity == "work"
    assert map_work(page.payloads[0]).arxiv_id == "2312.07559"


def test_selected_fields_without_id_are_kept_for_the_mapper_to_reject(real_fixtures):
    page = only(cassette(real_fixtures, "paperqa__test_does_openalex_work__oa-in-openalex1.yaml"))

    assert page.entity == "work"  # from the request path /works/…
    with pytest.raises(MappingError, match="has no id"):
        map_work(page.payloads[0])


def test_atom_feeds_go_through_arxiv_parse_feed(real_fixtures):
    page = only(real_fixtures / "arxiv" / "query__all-testing__start-0__max-10__2026-04.atom.xml")
    error = only(real_fixtures / "arxiv" / "query__id_list-abc__http-400-error__2026-04.atom.xml")

    assert (page.entity, len(page.payloads), page.total) == ("arxiv", 10, 214881)
    assert isinstance(error, SourceError)
    assert "query__id_list-abc" in str(error)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.json", b'{"id": "https://openalex.org/W1", "title": ', "not valid JSON"),
        ("empty.json", b"  \n", "empty"),
        ("notes.txt", b"hello there", "unknown format"),
        ("page.xml", b"<?xml version='1.0'?><html><body/></html>", "not an Atom feed"),
        ("other.yaml", b"key: value\n", "not a VCR cassette"),
        ("bad.yaml", b"http_interactions: [\n", "not valid YAML"),
        ("thing.json", b'{"hello": "world"}', "without an OpenAlex id"),
        ("bad.gz", b"\x1f\x8bnot really gzip", "cannot be read"),
    ],
)
def test_unreadable_files_become_source_errors_naming_the_file(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)

    error = only(path)

    assert isinstance(error, SourceError)
    assert name in str(error)
    assert message in str(error)


def test_a_bad_line_in_json_lines_does_not_stop_the_rest(tmp_path):
    lines = [
        {"id": "https://openalex.org/W1", "title": "One"},
        "this is not json",
        {"id": "https://openalex.org/W2", "title": "Two"},
    ]
    path = tmp_path / "part.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))

    found = items(path)

    assert [type(i).__name__ for i in found] == ["Page", "SourceError", "Page"]
    assert "line 2" in str(found[1])


def test_a_damaged_first_line_does_not_lose_the_file(tmp_path):
    path = tmp_path / "part_001"
    good = json.dumps({"id": "https://openalex.org/A1", "display_name": "Ann"})
    path.write_text('{"id": "https://openalex.org/W1", "tit\n' + good + "\n" + good + "\n")

    found = items(path)

    assert isinstance(found[0], SourceError) and "line 1" in str(found[0])
    assert (found[1].entity, len(found[1].payloads)) == ("author", 2)


def test_cassette_skips_redirects_and_reads_base64_bodies(tmp_path):
    work = {"id": "https://openalex.org/W1", "title": "One"}
    cassette_text = {
        "http_interactions": [
            {
                "request": {"uri": "https://api.openalex.org/works/W9"},
                "response": {"status": {"code": 301}, "body": {"string": ""}},
            },
            {
                "request": {"uri": "https://api.openalex.org/works/W1"},
                "response": {
                    "status": 200,
                    "body": {"base64_string": base64.b64encode(json.dumps(work).encode()).decode()},
                },
            },
        ]
    }
    path = tmp_path / "recorded.yml"
    path.write_text(yaml.safe_dump(cassette_text))

    page = only(path)

    assert (page.entity, page.payloads) == ("work", [work])


def test_describe_request_hides_keys_and_emails():
    uri = (
        "https://api.openalex.org/works?filter=doi%3A10.1%2Fx&api_key=%3Capi-key%3E&mailto=a%40b.c"
    )

    assert describe_request(uri) == "works matching filter=doi:10.1/x"
    assert describe_request("https://api.openalex.org/authors/A1") == "author A1"

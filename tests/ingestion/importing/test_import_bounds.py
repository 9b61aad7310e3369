"""What one recorded file may make an import hold: bombs and nesting are problems, not crashes.

A gzipped line that never ends, a file that unpacks to far more than it weighs,
a document or a cassette body past its limit, and JSON nested past what a parser
can read each become one clear problem naming the file, the line and the limit;
the run goes on with the next line or file, and memory stays bounded.
"""

from __future__ import annotations

import base64
import gzip
import json
import tracemalloc

import pytest
import responses
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalogue.models import ImportProblem, ImportRun, Work
from ingestion.importing.execution import import_run_execute
from ingestion.importing.quarantine import kept_payload
from ingestion.records import Page, SourceError
from ingestion.sources import bounds
from ingestion.sources.files import Part, read_file
from ingestion.sources.lines import parse_line
from ingestion.sources.openalex.fetching import openalex_message, pages
from tests.factories import UserFactory
from tests.ingestion.importing.import_files import run_files
from tests.ingestion.sources.openalex_recordings import API

MB = 1024 * 1024
DEEP = bounds.MAX_JSON_DEPTH + 1


def work(number: int) -> dict:
    return {
        "id": f"https://openalex.org/W{number}",
        "title": f"Bounded work {number}",
        "display_name": f"Bounded work {number}",
        "publication_year": 2021,
        "type": "article",
    }


def line(number: int) -> bytes:
    return json.dumps(work(number)).encode() + b"\n"


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def write_gzip(path, *pieces: bytes | tuple[bytes, int]):
    """A gzip file of ``pieces``; ``(chunk, n)`` writes ``chunk`` n times, never held whole."""
    with gzip.open(path, "wb", compresslevel=9) as out:
        for piece in pieces:
            chunk, times = piece if isinstance(piece, tuple) else (piece, 1)
            for _ in range(times):
                out.write(chunk)
    return path


def problems(run: ImportRun) -> list[str]:
    return list(ImportProblem.objects.filter(run=run).values_list("error", flat=True))


def imported() -> set[str]:
    return set(Work.objects.values_list("openalex_id", flat=True))


def peak_bytes(function) -> tuple[object, int]:
    """What ``function()`` returns, and the most Python memory it held at once."""
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def kinds(found: list) -> list[str]:
    return [type(item).__name__ for item in found]


# Lines too long ----------------------------------------------------------------


@pytest.mark.django_db
def test_a_gzip_bomb_line_is_one_problem_and_the_lines_after_it_are_imported(tmp_path, settings):
    settings.IMPORT_MAX_LINE_BYTES = MB
    bomb = write_gzip(tmp_path / "part_000.gz", line(1), (b"a" * MB, 64), b"\n", line(2), line(3))
    assert bomb.stat().st_size < 200_000  # 64 MB of one byte, gzipped

    run = run_files(bomb)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = problems(run)
    assert "part_000.gz line 2" in problem and "IMPORT_MAX_LINE_BYTES" in problem
    assert f"{64 * MB + 1:,} bytes" in problem and f"{MB:,} bytes" in problem
    assert {"W1", "W2", "W3"} <= imported()
    assert run.counters["problems"] == 1


def test_reading_a_line_that_never_ends_holds_only_the_line_limit(tmp_path, settings):
    settings.IMPORT_MAX_LINE_BYTES = MB
    bomb = write_gzip(tmp_path / "bomb.gz", line(1), (b"a" * MB, 128))  # no newline, ever

    found, peak = peak_bytes(lambda: list(read_file(bomb)))

    assert kinds(found) == ["Page", "SourceError"]
    assert "bomb.gz line 2" in str(found[1]) and "IMPORT_MAX_LINE_BYTES" in str(found[1])
    assert found[1].body.startswith("aaaa") and len(found[1].body) <= bounds.PREVIEW_BYTES
    assert peak < 8 * MB, f"{peak:,} bytes held reading a 128 MB line"


def test_an_over_long_line_is_reported_by_the_part_that_owns_its_record(tmp_path, settings):
    settings.IMPORT_MAX_LINE_BYTES = 200
    long_line = b'{"id": "https://openalex.org/W7", "title": "' + b"x" * 500 + b'"}\n'
    path = tmp_path / "part.jsonl"
    path.write_bytes(line(1) + long_line + line(2))

    found = [item for index in range(3) for item in read_file(path, Part(index, 3))]

    [problem] = [item for item in found if isinstance(item, SourceError)]
    assert "part.jsonl line 2" in str(problem)
    assert problem.body.startswith('{"id": "https://openalex.org/W7"')
    records = [p["id"] for item in found if isinstance(item, Page) for p in item.payloads]
    assert sorted(records) == ["https://openalex.org/W1", "https://openalex.org/W2"]


def test_a_one_line_document_past_the_line_limit_is_one_problem(tmp_path, settings):
    settings.IMPORT_MAX_LINE_BYTES = 1000
    path = tmp_path / "works.json"
    path.write_text(json.dumps({"results": [work(n) for n in range(1, 50)]}))

    [problem] = list(read_file(path))

    assert "works.json" in str(problem) and "IMPORT_MAX_LINE_BYTES" in str(problem)


def test_many_long_lines_are_not_held_in_one_page(tmp_path, settings):
    settings.IMPORT_MAX_DOCUMENT_BYTES = 3000
    records = [{**work(n), "abstract": "y" * 900} for n in range(1, 11)]
    path = tmp_path / "part.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))

    pages = list(read_file(path))

    assert [len(page.payloads) for page in pages] == [2, 2, 2, 2, 2]
    assert [p for page in pages for p in page.payloads] == records


# Files that unpack to too much ---------------------------------------------------


@pytest.mark.django_db
def test_a_file_past_the_decompressed_limit_stops_there_and_the_next_file_is_read(
    tmp_path, settings
):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 4 * MB
    filler = json.dumps({**work(9), "abstract": "z" * 100_000}).encode() + b"\n"
    big = write_gzip(tmp_path / "big.gz", line(1), line(2), (filler, 100))
    after = tmp_path / "after.jsonl"
    after.write_bytes(line(3) + line(4))

    run = run_files(big, after)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = problems(run)
    assert "big.gz line" in problem and "IMPORT_MAX_DECOMPRESSED_BYTES" in problem
    assert {"W1", "W2", "W3", "W4", "W9"} <= imported()


def test_a_document_past_its_limit_is_one_problem_naming_the_limit(tmp_path, settings):
    settings.IMPORT_MAX_DOCUMENT_BYTES = 10_000
    page = json.dumps({"results": [work(n) for n in range(1, 100)]}, indent=2)
    gzipped = write_gzip(tmp_path / "works.json.gz", page.encode())
    feed = tmp_path / "feed.xml"
    feed.write_text('<feed xmlns="http://www.w3.org/2005/Atom">' + " " * 20_000 + "</feed>")

    for path in (gzipped, feed):
        [problem] = list(read_file(path))
        assert path.name in str(problem) and "IMPORT_MAX_DOCUMENT_BYTES" in str(problem)


def test_json_lines_with_a_damaged_first_line_past_the_document_limit_are_still_read(
    tmp_path, settings
):
    settings.IMPORT_MAX_DOCUMENT_BYTES = 1000
    path = tmp_path / "part_001"
    path.write_bytes(
        b'{"id": "https://openalex.org/W1", "tit\n' + b"".join(map(line, range(2, 60)))
    )

    found = list(read_file(path))

    assert isinstance(found[0], SourceError) and "line 1" in str(found[0])
    ids = [p["id"] for item in found[1:] for p in item.payloads]
    assert ids == [f"https://openalex.org/W{n}" for n in range(2, 60)]


def cassette(*bodies: dict) -> str:
    interactions = [
        {
            "request": {"uri": f"https://api.openalex.org/works/W{n}"},
            "response": {"status": {"code": 200}, "body": body},
        }
        for n, body in enumerate(bodies, start=1)
    ]
    return yaml.safe_dump({"interactions": interactions})


def gzip_body(data: bytes) -> dict:
    return {"base64_string": base64.b64encode(gzip.compress(data)).decode()}


def test_a_gzip_body_in_a_cassette_past_the_document_limit_is_one_problem(tmp_path, settings):
    settings.IMPORT_MAX_DOCUMENT_BYTES = MB
    bomb = gzip_body(b"[" + b" " * (8 * MB) + b"]")
    path = tmp_path / "recorded.yaml"
    path.write_text(
        cassette(gzip_body(json.dumps(work(1)).encode()), bomb, {"string": json.dumps(work(3))})
    )

    found = list(read_file(path))

    assert kinds(found) == ["Page", "SourceError", "Page"]
    assert "recorded.yaml #2" in str(found[1]) and "IMPORT_MAX_DOCUMENT_BYTES" in str(found[1])
    assert found[2].payloads == [work(3)]  # the interactions after it are read


def test_cassette_bodies_together_stop_at_the_decompressed_limit(tmp_path, settings):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 3 * MB
    body = gzip_body(json.dumps({**work(1), "abstract": "q" * MB}).encode())
    path = tmp_path / "recorded.yaml"
    path.write_text(cassette(*[dict(body) for _ in range(5)]))

    found = list(read_file(path))

    assert kinds(found) == ["Page", "Page", "Page", "SourceError"]
    assert "IMPORT_MAX_DECOMPRESSED_BYTES" in str(found[-1])


def test_a_body_a_cassette_repeats_by_yaml_alias_is_read_once(tmp_path):
    request = "request: {uri: 'https://api.openalex.org/works/W1'}"
    first = (
        f"- {request}\n  response: {{body: {{string: &body {json.dumps(json.dumps(work(1)))}}}}}\n"
    )
    again = f"- {{{request}, response: {{body: {{string: *body}}}}}}\n"
    path = tmp_path / "aliases.yaml"
    path.write_text("interactions:\n" + first + again * 1000)

    assert kinds(list(read_file(path))) == ["Page"]


def test_a_cassette_body_that_is_not_text_is_a_problem(tmp_path):
    path = tmp_path / "odd.yaml"
    good = {"string": json.dumps(work(3))}
    path.write_text(cassette({"string": {"a": 1}}, {"base64_string": ["x"]}, good))

    found = list(read_file(path))

    assert kinds(found) == ["SourceError", "SourceError", "Page"]
    assert all("unreadable response body" in str(error) for error in found[:2])


# Upload through "New import" ------------------------------------------------------


@pytest.mark.django_db
def test_an_uploaded_gzip_bomb_imports_its_good_lines_with_one_problem(
    client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.IMPORT_UPLOAD_DIR = tmp_path / "imports"
    settings.IMPORT_MAX_LINE_BYTES = MB
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    bomb = write_gzip(tmp_path / "x.gz", line(1), (b"a" * MB, 128), b"\n", line(2))
    upload = SimpleUploadedFile("part_000.gz", bomb.read_bytes())
    data = {"source": "openalex", "kind": "dois", "value": "", "upload": upload}

    with django_capture_on_commit_callbacks(execute=False):
        client.post(reverse("admin:publications_importrun_new_import"), data)
    run, peak = peak_bytes(lambda: import_run_execute(run_id=ImportRun.objects.get().pk))

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = problems(run)
    assert "line 2" in problem and "IMPORT_MAX_LINE_BYTES" in problem
    assert {"W1", "W2"} <= imported()
    assert peak < 32 * MB, f"{peak:,} bytes held importing a 128 MB line"


# JSON nested too deeply ------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content",
    [
        "[" * 100_000,
        '{"a":' * 100_000,
        nested(DEEP),
        nested(5000),
        json.dumps({"results": [work(5)]}).replace("[", "[" + "[" * DEEP, 1),
    ],
    ids=["open-arrays", "open-objects", "just-too-deep", "deep-and-closed", "deep-list-page"],
)
def test_a_deeply_nested_file_is_one_problem_and_the_next_file_is_imported(tmp_path, content):
    deep = tmp_path / "deep.json"
    deep.write_text(content)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(work(1)))

    run = run_files(deep, good)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = problems(run)
    assert "deep.json" in problem and "nested too deeply" in problem
    assert "W1" in imported()


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [DEEP, 1000, 100_000])
def test_a_deeply_nested_line_is_one_problem_and_the_other_lines_are_imported(tmp_path, depth):
    deep = json.dumps({**work(2), "x": 0}).replace('"x": 0', f'"x": {nested(depth)}')
    path = tmp_path / "part.jsonl"
    path.write_text(line(1).decode() + deep + "\n" + line(3).decode())

    run = run_files(path)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = problems(run)
    assert "part.jsonl line 2" in problem and "nested too deeply" in problem
    assert {"W1", "W3"} <= imported() and "W2" not in imported()


@pytest.mark.django_db
def test_the_problem_of_a_nested_line_shows_in_the_admin_and_keeps_the_line(client, tmp_path):
    path = tmp_path / "part.jsonl"
    path.write_text(nested(100_000) + "\n" + line(1).decode())
    run = run_files(path)
    problem = ImportProblem.objects.get(run=run)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    page = client.get(reverse("admin:publications_importproblem_change", args=[problem.pk]))

    assert page.status_code == 200 and "nested too deeply" in page.content.decode()
    assert (
        problem.raw_payload == nested(100_000)
        and kept_payload(problem.payload, problem.raw_payload) is None
    )


@pytest.mark.django_db
def test_nesting_as_deep_as_allowed_is_imported(tmp_path):
    deep = json.dumps({**work(2), "x": 0}).replace('"x": 0', f'"x": {nested(DEEP - 2)}')
    path = tmp_path / "part.jsonl"
    path.write_text(line(1).decode() + deep + "\n")

    run = run_files(path)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert problems(run) == [] and {"W1", "W2"} <= imported()


def test_a_nested_cassette_body_or_yaml_is_a_problem_and_the_rest_is_read(tmp_path):
    path = tmp_path / "recorded.yaml"
    path.write_text(cassette({"string": nested(100_000)}, {"string": json.dumps(work(1))}))
    deep_yaml = tmp_path / "deep.yaml"
    deep_yaml.write_text("interactions: " + nested(100_000))

    found = list(read_file(path))
    [yaml_problem] = list(read_file(deep_yaml))

    assert kinds(found) == ["SourceError", "Page"]
    assert "#1" in str(found[0]) and "nested too deeply" in str(found[0])
    assert "deep.yaml" in str(yaml_problem)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('{"a": [1, {"b": [2]}]}', 4),
        ('{"t": "[[[[{{{{", "u": [1]}', 2),
        ('{"t": "]]]]}}}}", "u": [[[1]]]}', 4),
        ('["\\"[[[", [[]]]', 3),
        ('["\\\\", [[]]]', 3),
        ('["\\\\\\"[[[["]', 1),
        ("[" * 70_000, 70_000),
        ("", 0),
    ],
)
def test_json_depth_reads_brackets_outside_strings_only(text, depth):
    assert bounds.json_depth(text.encode()) == depth


@pytest.mark.parametrize("status", [200, 400])
def test_a_live_openalex_answer_nested_too_deeply_is_a_source_error(settings, status):
    settings.OPENALEX_EMAIL = ""
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", status=status, body="[" * 100_000)
        with pytest.raises(SourceError) as caught:
            list(pages("filter", {"filter": {"type": "article"}}))
    assert caught.value.status in (None, 400)


def test_every_reader_of_json_text_refuses_deep_nesting_without_recursing():
    deep = "[" * 100_000
    assert "nested too deeply" in str(parse_line(deep.encode())[1])
    assert kept_payload(None, deep) is None
    assert openalex_message(deep) == ""
    with pytest.raises(ValueError, match="nested too deeply"):
        bounds.json_loads(nested(DEEP))
    assert bounds.json_loads(nested(DEEP - 1)) is not None

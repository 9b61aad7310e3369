"""Recorded OpenAlex answers (fixtures/real/openalex) read for the OpenAlex tests."""

import gzip
import json

import yaml

API = "https://api.openalex.org"
CITED_BY = (
    "works__filter-cited_by-W3046863325-W3045921891__cursor-first-page__per-page-200__2025-11.json"
)
AUTHOR_WORKS = "works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json"


def load(real_fixtures, name):
    return json.loads((real_fixtures / "openalex" / name).read_text(encoding="utf-8"))


def snapshot_lines(real_fixtures):
    path = (
        real_fixtures / "openalex" / "snapshot" / "works__updated_date=2021-11-03__part_000.jsonl"
    )
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cited_by_results(real_fixtures):
    return {r["id"].rsplit("/", 1)[-1]: r for r in load(real_fixtures, CITED_BY)["results"]}


def cassette_body(real_fixtures, name, index=0):
    document = yaml.safe_load((real_fixtures / "openalex" / "cassettes" / name).read_bytes())
    interactions = document.get("http_interactions") or document["interactions"]
    body = interactions[index]["response"]["body"]["string"]
    if isinstance(body, bytes) and body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    return body.decode() if isinstance(body, bytes) else body

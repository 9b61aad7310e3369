"""The synthetic corpus: deterministic, well formed, heavy-tailed, and streamed."""

from __future__ import annotations

import gzip
import inspect
import itertools
import json
import re
from collections import Counter
from statistics import median

import pytest

from catalogue.identifiers import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_orcid,
)
from devtools.corpus import (
    REQUIRED_KEYS,
    CorpusGenerator,
    generate_works,
    main,
    synthetic_orcid,
    write_corpus,
)

N = 4000
WORK_ID = re.compile(r"^https://openalex\.org/W8\d{9}$")
AUTHOR_ID = re.compile(r"^https://openalex\.org/A8\d{9}$")
AUTHORSHIP_KEYS = {
    "author_position",
    "author",
    "institutions",
    "raw_author_name",
    "raw_affiliation_strings",
    "is_corresponding",
}
TOPIC_KEYS = {"id", "display_name", "score", "subfield", "field", "domain"}


@pytest.fixture(scope="module")
def works() -> list[dict]:
    return list(generate_works(N, seed=11))


def _lines(path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def test_works_come_from_a_generator_not_a_list():
    assert inspect.isgenerator(generate_works(10, seed=1))
    # Ten million works: only the first few are ever built.
    first = list(itertools.islice(generate_works(10_000_000, n_authors=500, seed=1), 3))
    assert [w["id"] for w in first] == [
        "https://openalex.org/W8000000001",
        "https://openalex.org/W8000000002",
        "https://openalex.org/W8000000003",
    ]


def test_works_can_only_be_iterated_once():
    generator = CorpusGenerator(5, seed=1)
    list(generator.works())
    with pytest.raises(RuntimeError):
        list(generator.works())


@pytest.mark.parametrize("compress", [False, True])
def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, compress):
    suffix = ".jsonl.gz" if compress else ".jsonl"
    first = write_corpus(tmp_path / f"a{suffix}", 300, seed=5, compress=compress)
    second = write_corpus(tmp_path / f"b{suffix}", 300, seed=5, compress=compress)
    third = write_corpus(tmp_path / f"c{suffix}", 300, seed=6, compress=compress)
    a, b, c = ((tmp_path / f"{x}{suffix}").read_bytes() for x in "abc")
    assert a == b
    assert a != c
    assert first.works == second.works == third.works == 300
    assert len(_lines(tmp_path / f"a{suffix}")) == 300


def test_every_line_is_a_work_with_the_required_keys(tmp_path):
    path = tmp_path / "works.jsonl"
    write_corpus(path, 500, seed=3)
    lines = _lines(path)
    assert len(lines) == 500
    ids = set()
    for line in lines:
        work = json.loads(line)
        assert set(REQUIRED_KEYS) <= set(work)
        assert WORK_ID.match(work["id"])
        ids.add(work["id"])
        assert work["display_name"] == work["title"]
        assert work["publication_date"].startswith(str(work["publication_year"]))
        assert work["created_date"] <= work["updated_date"][:10]
        assert work["ids"]["openalex"] == work["id"]
        assert work["ids"].get("doi") == work["doi"]
        source = work["primary_location"]["source"]
        assert {"id", "display_name", "type"} <= set(source)
        assert 1 <= len(work["authorships"]) <= 12
        for authorship in work["authorships"]:
            assert set(authorship) >= AUTHORSHIP_KEYS
            assert AUTHOR_ID.match(authorship["author"]["id"])
            for institution in authorship["institutions"]:
                assert {"id", "display_name", "ror", "country_code", "type"} <= set(institution)
        assert work["topics"] and work["primary_topic"] == work["topics"][0]
        for topic in work["topics"]:
            assert set(topic) >= TOPIC_KEYS
        scores = [t["score"] for t in work["topics"]]
        assert scores == sorted(scores, reverse=True)
        assert sum(c["cited_by_count"] for c in work["counts_by_year"]) <= work["cited_by_count"]
        positions = sorted(p for ps in work["abstract_inverted_index"].values() for p in ps)
        assert positions == list(range(len(positions)))
    assert len(ids) == 500


def test_positions_first_middle_last(works):
    for work in works:
        positions = [a["author_position"] for a in work["authorships"]]
        assert positions[0] == "first"
        if len(positions) > 1:
            assert positions[-1] == "last"
            assert set(positions[1:-1]) <= {"middle"}
        assert sum(a["is_corresponding"] for a in work["authorships"]) == 1


def test_orcids_are_valid_and_about_thirty_percent(works):
    authors = {}
    for work in works:
        for authorship in work["authorships"]:
            authors[authorship["author"]["id"]] = authorship["author"]["orcid"]
    orcids = [o for o in authors.values() if o]
    assert 0.2 < len(orcids) / len(authors) < 0.4
    assert len(set(orcids)) == len(orcids)
    for orcid in orcids:
        assert orcid.startswith("https://orcid.org/0009-8")
        assert normalize_orcid(orcid) == orcid.rsplit("/", 1)[1]


def test_orcid_helper_checksum():
    for number in (0, 1, 42, 9_999_999_999):
        assert normalize_orcid(synthetic_orcid(number)) == synthetic_orcid(number)


def test_about_a_fifth_are_arxiv_preprints_with_matching_ids(works):
    preprints = [w for w in works if w["type"] == "preprint"]
    assert 0.15 < len(preprints) / len(works) < 0.25
    arxiv_ids = set()
    for work in preprints:
        arxiv_id = arxiv_id_from_doi(work["doi"])
        assert re.fullmatch(r"\d{4}\.\d{5}", arxiv_id)
        assert normalize_arxiv_id(work["primary_location"]["landing_page_url"]) == arxiv_id
        assert work["primary_location"]["source"]["type"] == "repository"
        assert f"{work['publication_year'] % 100:02d}" == arxiv_id[:2]
        arxiv_ids.add(arxiv_id)
    assert len(arxiv_ids) == len(preprints)
    for work in works:
        if work["type"] != "preprint" and work["doi"]:
            assert normalize_doi(work["doi"]).startswith("10.5555/")


def test_author_productivity_is_heavy_tailed(works):
    degree = Counter(a["author"]["id"] for w in works for a in w["authorships"])
    counts = sorted(degree.values(), reverse=True)
    top = max(1, len(counts) // 100)
    share = sum(counts[:top]) / sum(counts)
    assert share > 0.08, f"top 1% of authors hold only {share:.1%} of authorships"
    assert counts[0] > 10 * median(counts)


def test_teams_are_mostly_small(works):
    sizes = [len(w["authorships"]) for w in works]
    assert min(sizes) == 1 and max(sizes) == 12
    assert median(sizes) <= 4
    assert sum(s <= 4 for s in sizes) / len(sizes) > 0.6


def test_collaborations_repeat(works):
    pairs = Counter()
    for work in works:
        ids = sorted(a["author"]["id"] for a in work["authorships"])
        pairs.update(itertools.combinations(ids, 2))
    repeated = [pair for pair, count in pairs.items() if count >= 2]
    assert len(repeated) > 0.05 * len(pairs)
    assert pairs.most_common(1)[0][1] >= 5


def test_topics_are_concentrated(works):
    topics = Counter(w["primary_topic"]["id"] for w in works)
    counts = sorted(topics.values(), reverse=True)
    top = max(1, len(counts) // 10)
    assert sum(counts[:top]) / sum(counts) > 0.2


def test_command_writes_a_gzip_file_and_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "corpus" / "works.jsonl.gz"
    main(["--works", "120", "--seed", "2", "--out", str(out)])
    assert "Wrote 120 works" in capsys.readouterr().out
    lines = _lines(out)
    assert len(lines) == 120
    assert json.loads(lines[0])["id"] == "https://openalex.org/W8000000001"
    assert not list(out.parent.glob("*.part"))

"""arXiv feeds, mapping and paging, against recorded feeds only (no network)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest
import requests
import responses
from responses import matchers

from ingestion.records import MappingError, SourceError
from ingestion.sources.arxiv import feed as atom
from ingestion.sources.arxiv import fetching, mapping

API = "https://export.arxiv.org/api/query"


def feed_bytes(real_fixtures, name: str) -> bytes:
    return (real_fixtures / "arxiv" / name).read_bytes()


def only_entry(real_fixtures, name: str) -> dict:
    (entry,) = atom.parse_feed(feed_bytes(real_fixtures, name)).entries
    return entry


@pytest.fixture
def fast(monkeypatch):
    """No courtesy delay and no retries: replays answer at once."""
    monkeypatch.setattr(fetching, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(fetching, "NUM_RETRIES", 0)


# --- parse_feed ------------------------------------------------------------------------------


def test_every_recorded_feed_parses(real_fixtures):
    feeds = sorted((real_fixtures / "arxiv").rglob("*.atom.xml"))
    assert {f.parent.name for f in feeds} == {"arxiv", "legacy-2016", "legacy-2019"}
    for path in feeds:
        if "error" in path.name:
            continue
        feed = atom.parse_feed(path.read_bytes())
        assert feed.total is not None and feed.per_page is not None, path.name
        json.dumps(feed.entries)  # stored as a JSON payload
        for entry in feed.entries:
            assert entry["arxiv_id"] and entry["title"] and entry["published"], path.name
            record = mapping.map_entry(entry)
            assert record.authors and record.topics, path.name


def test_feed_header_legacy_and_current(real_fixtures):
    legacy = atom.parse_feed(
        feed_bytes(real_fixtures, "legacy-2016/query__au-del_maestro__2016-10.atom.xml")
    )
    assert (legacy.total, legacy.start, legacy.per_page, len(legacy.entries)) == (31, 0, 10, 10)
    current = atom.parse_feed(
        feed_bytes(real_fixtures, "query__all-testing__start-10__max-10__2026-04.atom.xml")
    )
    assert (current.total, current.start, current.per_page) == (214881, 10, 10)


def test_payload_of_current_layout(real_fixtures):
    entry = only_entry(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    assert entry == {
        "id": "http://arxiv.org/abs/1605.08386v1",
        "arxiv_id": "1605.08386",
        "version": "v1",
        "title": "Heat-bath random walks with Markov bases",
        "summary": entry["summary"],
        "authors": [
            {"name": "Caprice Stanley", "affiliations": []},
            {"name": "Tobias Windisch", "affiliations": []},
        ],
        "published": "2016-05-26T17:59:46+00:00",
        "updated": "2016-05-26T17:59:46+00:00",
        "comment": "20 pages, 3 figures",
        "journal_ref": "",
        "doi": "",
        "primary_category": "math.CO",
        "categories": ["math.CO", "math.ST"],
        "links": [
            {
                "href": "https://arxiv.org/abs/1605.08386v1",
                "rel": "alternate",
                "type": "text/html",
                "title": "",
            },
            {
                "href": "https://arxiv.org/pdf/1605.08386v1",
                "rel": "related",
                "type": "application/pdf",
                "title": "pdf",
            },
        ],
    }
    assert entry["summary"].startswith("Graphs on lattice points are studied")


def test_legacy_inline_namespaces_are_read(real_fixtures):
    entry = only_entry(
        real_fixtures, "legacy-2016/query__au-del_maestro_AND_ti-checkerboard__2016-10.atom.xml"
    )
    assert entry["arxiv_id"] == "cond-mat/0603029"
    assert entry["doi"] == "10.1103/PhysRevB.74.024520"
    assert entry["journal_ref"] == "Phys. Rev. B 74, 024520 (2006)"
    assert entry["comment"] == "10 pages, 11 figures; added reference"
    assert entry["primary_category"] == "cond-mat.str-el"
    assert entry["categories"] == ["cond-mat.str-el", "cond-mat.supr-con"]


def test_error_feed_raises_source_error(real_fixtures):
    data = feed_bytes(real_fixtures, "query__id_list-abc__http-400-error__2026-04.atom.xml")
    with pytest.raises(SourceError) as caught:
        atom.parse_feed(data)
    assert str(caught.value) == "arXiv refused the query: incorrect id format for abc"
    assert "incorrect_id_format_for_abc" in caught.value.body


def test_empty_feed_has_no_entries(real_fixtures):
    feed = atom.parse_feed(
        feed_bytes(real_fixtures, "query__id_list-0000.0000__empty__2026-04.atom.xml")
    )
    assert feed.entries == []
    assert feed.total == 0


def test_text_input_is_accepted(real_fixtures):
    data = feed_bytes(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    assert atom.parse_feed(data.decode("utf-8")) == atom.parse_feed(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"<html><body>Service unavailable</body></html>", "<feed", b'{"results": []}'],
)
def test_malformed_input_is_not_an_atom_feed(data):
    with pytest.raises(SourceError, match="^not an Atom feed: "):
        atom.parse_feed(data)


# --- map_entry -------------------------------------------------------------------------------


def test_map_current_entry(real_fixtures):
    record = mapping.map_entry(
        only_entry(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    )
    assert (record.source, record.external_id, record.arxiv_id) == (
        "arxiv",
        "1605.08386",
        "1605.08386",
    )
    assert record.type == "preprint"
    assert record.title == "Heat-bath random walks with Markov bases"
    assert record.abstract.startswith("Graphs on lattice points are studied whose edges")
    assert [(a.position, a.name, a.raw_name) for a in record.authors] == [
        (0, "Caprice Stanley", "Caprice Stanley"),
        (1, "Tobias Windisch", "Tobias Windisch"),
    ]
    assert record.publication_date == date(2016, 5, 26)
    assert record.publication_year == 2016
    assert record.updated_at == datetime(2016, 5, 26, 17, 59, 46, tzinfo=UTC)
    assert record.doi is None
    assert record.journal_ref == ""
    assert record.comments == "20 pages, 3 figures"
    assert record.arxiv_primary_category == "math.CO"
    assert [(t.key, t.name, t.kind, t.is_primary) for t in record.topics] == [
        ("arxiv:math.CO", "Combinatorics", "arxiv", True),
        ("arxiv:math.ST", "Statistics Theory", "arxiv", False),
    ]
    assert record.pdf_url == "https://arxiv.org/pdf/1605.08386v1"
    assert record.landing_url == "https://arxiv.org/abs/1605.08386v1"
    assert record.code_url == ""
    assert record.is_open_access is True


def test_map_legacy_checkerboard_entry(real_fixtures):
    record = mapping.map_entry(
        only_entry(
            real_fixtures,
            "legacy-2016/query__au-del_maestro_AND_ti-checkerboard__2016-10.atom.xml",
        )
    )
    assert record.external_id == "cond-mat/0603029"
    assert record.doi == "10.1103/physrevb.74.024520"
    assert record.journal_ref == "Phys. Rev. B 74, 024520 (2006)"
    # The feed wraps the title over two lines with an indent.
    assert record.title == (
        "From stripe to checkerboard order on the square lattice in the presence "
        "of quenched disorder"
    )
    # Hard-wrapped abstract lines are joined back into one paragraph.
    assert "\n" not in record.abstract
    assert "charge density wave (CDW) ordering" in record.abstract
    assert [a.name for a in record.authors] == [
        "Adrian Del Maestro",
        "Bernd Rosenow",
        "Subir Sachdev",
    ]
    assert [t.name for t in record.topics] == [
        "Strongly Correlated Electrons",
        "Superconductivity",
    ]
    # Legacy feeds link over http; the record links over https.
    assert record.pdf_url == "https://arxiv.org/pdf/cond-mat/0603029v1"
    assert record.landing_url == "https://arxiv.org/abs/cond-mat/0603029v1"


def test_map_old_style_id_with_affiliations(real_fixtures):
    record = mapping.map_entry(
        only_entry(real_fixtures, "query__id_list-astro-ph_0601001__2026-05.atom.xml")
    )
    assert record.external_id == "astro-ph/0601001"
    assert record.journal_ref == "ActaAstron.56:1-50,2006"
    assert [(a.name, a.raw_affiliation) for a in record.authors] == [
        ("Andrew Gould", "Ohio State"),
        ("Susan Dorsher", "Ohio State"),
        ("B. Scott Gaudi", "CfA"),
        ("Andrzej Udalski", "Warsaw University Observatory"),
    ]
    assert [(t.key, t.name, t.is_primary) for t in record.topics] == [
        ("arxiv:astro-ph", "Astrophysics", True)
    ]
    # A PostScript file on a university server is not a code repository.
    assert record.code_url == ""
    assert "V_max<17.5" in record.abstract


def test_map_2019_inline_namespaced_affiliations(real_fixtures):
    record = mapping.map_entry(
        only_entry(real_fixtures, "legacy-2019/query__id_list-astro-ph_9812133__2019-01.atom.xml")
    )
    assert record.external_id == "astro-ph/9812133"
    assert record.doi == "10.1086/307221"
    assert record.journal_ref == "Astrophys.J.517:565-586,1999"
    assert len(record.authors) == 32
    assert record.authors[0].name == "S. Perlmutter"
    assert record.authors[-1].name == "W. J. Couch"
    assert record.authors[-1].position == 31
    assert {a.raw_affiliation for a in record.authors} == {"The Supernova Cosmology Project"}
    assert record.comments.startswith("21 pages and 10 figures. Accepted for publication in the")
    assert "\n" not in record.comments
    assert [(t.key, t.is_primary) for t in record.topics] == [
        ("arxiv:astro-ph", True),
        ("arxiv:hep-ex", False),
        ("arxiv:hep-ph", False),
    ]


def test_all_categories_in_recordings_have_names(real_fixtures):
    unnamed = set()
    for path in (real_fixtures / "arxiv").rglob("*.atom.xml"):
        if "error" in path.name:
            continue
        for entry in atom.parse_feed(path.read_bytes()).entries:
            unnamed |= {c for c in entry["categories"] if mapping.category_name(c) == c}
    assert unnamed == set()


def test_unknown_category_falls_back_to_code():
    assert mapping.category_name("cs.LG") == "Machine Learning"
    assert mapping.category_name("xx.YY") == "xx.YY"


def test_code_link_from_comment_in_recording(real_fixtures):
    feed = atom.parse_feed(
        feed_bytes(real_fixtures, "query__all-testing__start-0__max-100__2026-04.atom.xml")
    )
    (entry,) = [e for e in feed.entries if e["arxiv_id"] == "1706.00679"]
    record = mapping.map_entry(entry)
    assert record.code_url == "https://github.com/ydecastro/super-resolution-testing"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The code of IOS is available at: https://github.com/mit-han-lab/inter-operator-scheduler.",
            "https://github.com/mit-han-lab/inter-operator-scheduler",
        ),
        ("Code: github.com/org/repo, data elsewhere", "https://github.com/org/repo"),
        ("(see https://gitlab.com/group/sub/project)", "https://gitlab.com/group/sub/project"),
        ("\\url{https://huggingface.co/org/model}", "https://huggingface.co/org/model"),
        ("at https://codeberg.org/me/tool; thanks", "https://codeberg.org/me/tool"),
        ("https://bitbucket.org/team/repo!", "https://bitbucket.org/team/repo"),
        ("http://sourceforge.net/projects/foo/", "http://sourceforge.net/projects/foo/"),
        ("project page https://opendatalab.github.io/REST.", ""),
        ("video at https://youtu.be/edgCNbGSGEY", ""),
        ("hosted on github.com.", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_extract_code_url(text, expected):
    assert mapping.extract_code_url(text) == expected


def test_code_link_prefers_comment_over_abstract(real_fixtures):
    entry = only_entry(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    entry["summary"] += " Code: https://github.com/from/abstract."
    assert mapping.map_entry(entry).code_url == "https://github.com/from/abstract"
    entry["comment"] = "20 pages; code at https://gitlab.com/from/comment"
    assert mapping.map_entry(entry).code_url == "https://gitlab.com/from/comment"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": "", "arxiv_id": ""}, "has no id"),
        ({"id": "https://example.org/x", "arxiv_id": ""}, "is not an arXiv identifier"),
        ({"title": "  \n "}, "1605.08386 has no title"),
    ],
)
def test_mapping_errors(real_fixtures, change, message):
    entry = only_entry(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    entry.update(change)
    with pytest.raises(MappingError, match=message):
        mapping.map_entry(entry)


def test_paragraph_breaks_survive_in_abstract():
    entry = {
        "id": "http://arxiv.org/abs/2101.00001v2",
        "title": "T",
        "summary": "  First line\nwraps here.\n  Second paragraph\nwraps too.\n",
    }
    record = mapping.map_entry(entry)
    assert record.abstract == "First line wraps here.\n\nSecond paragraph wraps too."
    assert record.external_id == "2101.00001"


# --- live fetching through the arxiv package (replayed) ---------------------------------------


def test_client_settings(fast):
    client = fetching.client()
    assert (client.page_size, client.delay_seconds, client.num_retries) == (100, 0.0, 0)


def test_build_search_for_each_kind():
    category = fetching.build_search(
        "category", {"category": "cs.LG", "from": "2024-01-01", "to": "2024-01-31"}
    )
    assert category.query == "cat:cs.LG AND submittedDate:[202401010000 TO 202401312359]"
    assert category.sort_by.value == "submittedDate"
    assert fetching.build_search("ids", {"ids": ["1605.08386", " "]}).id_list == ["1605.08386"]
    assert fetching.build_search("query", {"query": "au:del_maestro"}).query == "au:del_maestro"
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        fetching.build_search("category", {"category": "cs.LG", "from": "2024-01-01"})
    with pytest.raises(ValueError, match="unknown arXiv import kind"):
        fetching.build_search("author", {})


@responses.activate
def test_ids_page_matches_parse_feed(real_fixtures, fast):
    data = feed_bytes(real_fixtures, "query__id_list-1605.08386__2026-04.atom.xml")
    responses.get(
        API,
        body=data,
        match=[matchers.query_param_matcher({"id_list": "1605.08386"}, strict_match=False)],
    )
    (page,) = list(fetching.pages("ids", {"ids": ["1605.08386"]}))
    assert page.entity == "arxiv"
    assert page.payloads == atom.parse_feed(data).entries
    assert (page.next_cursor, page.total) == (None, 1)


@responses.activate
def test_full_page_with_affiliations_and_dois_matches_parse_feed(real_fixtures, fast):
    data = feed_bytes(real_fixtures, "query__all-testing__start-0__max-100__2026-04.atom.xml")
    responses.get(API, body=data)
    page = next(fetching.pages("query", {"query": "all:testing"}))
    assert page.payloads == atom.parse_feed(data).entries
    assert len(page.payloads) == 100
    assert (page.next_cursor, page.total) == (100, 214881)
    assert len(responses.calls) == 1  # the next page is not fetched until it is asked for


@responses.activate
def test_resuming_with_cursor_skips_what_was_yielded(real_fixtures, fast, monkeypatch):
    monkeypatch.setattr(fetching, "PAGE_SIZE", 10)
    for start in (0, 10):
        responses.get(
            API,
            body=feed_bytes(
                real_fixtures, f"query__all-testing__start-{start}__max-10__2026-04.atom.xml"
            ),
            match=[
                matchers.query_param_matcher(
                    {"search_query": "all:testing", "start": str(start), "max_results": "10"},
                    strict_match=False,
                )
            ],
        )
    first = next(fetching.pages("query", {"query": "all:testing"}))
    assert first.next_cursor == 10
    resumed = next(fetching.pages("query", {"query": "all:testing"}, cursor=first.next_cursor))
    assert resumed.next_cursor == 20
    assert [c.request.params["start"] for c in responses.calls] == ["0", "10"]
    first_ids = {p["arxiv_id"] for p in first.payloads}
    resumed_ids = {p["arxiv_id"] for p in resumed.payloads}
    assert len(first_ids) == len(resumed_ids) == 10
    assert first_ids.isdisjoint(resumed_ids)


@responses.activate
def test_empty_result_is_one_last_page_and_the_id_asked_for_is_missing(real_fixtures, fast):
    data = feed_bytes(real_fixtures, "query__id_list-0000.0000__empty__2026-04.atom.xml")
    responses.get(API, body=data)
    page, missing = list(fetching.pages("ids", {"ids": ["0000.0000"]}))
    assert (page.payloads, page.next_cursor, page.total) == ([], None, 0)
    assert isinstance(missing, SourceError) and missing.external_id == "0000.0000"
    assert str(missing) == "arXiv returned no record for the id 0000.0000 that was asked for"


@responses.activate
def test_http_400_becomes_source_error_without_retries(real_fixtures, monkeypatch):
    monkeypatch.setattr(fetching, "DELAY_SECONDS", 0.0)
    data = feed_bytes(real_fixtures, "query__id_list-abc__http-400-error__2026-04.atom.xml")
    responses.get(API, body=data, status=400)
    with pytest.raises(SourceError) as caught:
        list(fetching.pages("ids", {"ids": ["abc"]}))
    assert str(caught.value) == "arXiv refused the query: incorrect id format for abc (HTTP 400)"
    assert caught.value.status == 400
    assert "incorrect id format" in caught.value.body
    assert len(responses.calls) == 1  # a wrong query is not retried


@responses.activate
def test_server_error_is_retried_then_source_error(monkeypatch):
    monkeypatch.setattr(fetching, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(fetching, "NUM_RETRIES", 2)
    responses.get(API, body="<html>Service Unavailable</html>", status=503)
    with pytest.raises(SourceError, match="HTTP 503 after 3 tries") as caught:
        list(fetching.pages("query", {"query": "all:testing"}))
    assert caught.value.status == 503
    assert "Service Unavailable" in caught.value.body
    assert len(responses.calls) == 3


@responses.activate
def test_connection_failure_becomes_source_error(fast):
    responses.get(API, body=requests.ConnectionError("name resolution failed"))
    with pytest.raises(SourceError, match="could not be reached"):
        list(fetching.pages("query", {"query": "all:testing"}))


def test_result_to_payload_reads_author_affiliations():
    import arxiv

    result = arxiv.Result(
        entry_id="http://arxiv.org/abs/astro-ph/0601001v1",
        published=datetime(2006, 1, 2, 14, 57, 58, tzinfo=UTC),
        updated=datetime(2006, 1, 2, 14, 57, 58, tzinfo=UTC),
        title="A\n  title",
        authors=[arxiv.Result.Author("Andrew Gould", ["Ohio State"]), arxiv.Result.Author("X")],
        comment=None,
        doi=None,
    )
    payload = atom.result_to_payload(result)
    assert payload["arxiv_id"] == "astro-ph/0601001"
    assert payload["title"] == "A title"
    assert payload["authors"] == [
        {"name": "Andrew Gould", "affiliations": ["Ohio State"]},
        {"name": "X", "affiliations": []},
    ]
    assert (payload["comment"], payload["doi"]) == ("", "")
    assert payload["published"] == "2006-01-02T14:57:58+00:00"

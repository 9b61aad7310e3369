"""OpenAlex fetching, pyalex replayed with ``responses`` from recorded answers."""

import json
import re

import pytest
import responses
from responses import matchers
from responses.registries import OrderedRegistry

from ingestion.records import SourceError
from ingestion.sources.openalex import fetching
from ingestion.sources.openalex.fetching import pages, search_authors
from tests.ingestion.sources.openalex_recordings import (
    API,
    AUTHOR_WORKS,
    cassette_body,
    load,
)

# --- fetching (pyalex replayed with responses)


@pytest.fixture
def quick(monkeypatch, settings):
    settings.OPENALEX_EMAIL = "team@example.org"
    settings.OPENALEX_API_KEY = ""
    monkeypatch.setattr(fetching, "RETRY_BACKOFF", 0)


def works_params(filter_value, cursor="*", per_page=200):
    return matchers.query_param_matcher(
        {"filter": filter_value, "per-page": str(per_page), "cursor": cursor}
    )


def list_body(results, next_cursor=None, count=None):
    meta = {"count": len(results) if count is None else count, "next_cursor": next_cursor}
    return {"meta": meta, "results": results}


def test_retries_429_and_503_then_returns_the_page(real_fixtures, quick):
    body = load(real_fixtures, AUTHOR_WORKS)
    params = works_params("author.id:A5017898742")
    with responses.RequestsMock(registry=OrderedRegistry) as mock:
        mock.get(f"{API}/works", status=429, headers={"Retry-After": "0"}, match=[params])
        mock.get(f"{API}/works", status=503, match=[params])
        mock.get(f"{API}/works", json=body, match=[params])

        result = list(pages("filter", {"filter": {"author.id": "A5017898742"}}))

        assert len(mock.calls) == 3
    assert len(result) == 1
    assert result[0].entity == "work"
    assert len(result[0].payloads) == 9
    assert result[0].total == 9
    assert result[0].next_cursor is None
    assert type(result[0].payloads[0]) is dict


def test_exhausted_retries_become_source_error(quick, monkeypatch):
    monkeypatch.setattr(fetching, "MAX_RETRIES", 1)
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", status=503)

        with pytest.raises(SourceError, match="kept failing") as caught:
            list(pages("filter", {"filter": {"type": "article"}}))

    assert caught.value.status == 503


def test_query_error_400_carries_openalex_message(real_fixtures, quick):
    body = real_fixtures / "openalex" / "errors__works__filter-DOESNTEXIST__http-400__2025-11.json"
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", status=400, body=body.read_text(), content_type="application/json")

        with pytest.raises(SourceError) as caught:
            list(pages("filter", {"filter": {"DOESNTEXIST": 1}}))

    assert caught.value.status == 400
    assert "DOESNTEXIST is not a valid field" in str(caught.value)


def test_other_400_json_becomes_source_error(quick):
    with responses.RequestsMock() as mock:
        mock.get(
            f"{API}/works", status=400, json={"error": "Bad cursor", "message": "cursor expired"}
        )

        with pytest.raises(SourceError, match="cursor expired") as caught:
            list(pages("filter", {"filter": {"type": "article"}}))

    assert caught.value.status == 400
    assert "cursor expired" in caught.value.body


def test_404_html_becomes_source_error(real_fixtures, quick):
    html = cassette_body(
        real_fixtures, "paperqa__test_does_openalex_work__not-in-openalex-404.yaml"
    )
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/authors/A1", status=404, body=html, content_type="text/html")

        with pytest.raises(SourceError, match=r"OpenAlex has no author A1 \(HTTP 404\)") as caught:
            list(pages("author", {"id": "A1"}))

    assert caught.value.status == 404
    assert "<title>404 Not Found</title>" in caught.value.body


def test_cursor_paging_resumes_at_the_saved_cursor(real_fixtures, quick, monkeypatch):
    monkeypatch.setattr(fetching, "PER_PAGE", 5)
    works = load(real_fixtures, AUTHOR_WORKS)
    first, second = works["results"][:5], works["results"][5:]
    filter_value = "author.id:A5017898742"
    with responses.RequestsMock() as mock:
        mock.get(
            f"{API}/works",
            json=list_body(first, "CURSOR2", count=9),
            match=[works_params(filter_value, "*", 5)],
        )
        mock.get(
            f"{API}/works",
            json=list_body(second, None, count=9),
            match=[works_params(filter_value, "CURSOR2", 5)],
        )

        all_pages = list(pages("filter", {"filter": {"author.id": "A5017898742"}}))
        saved = json.loads(json.dumps(all_pages[0].next_cursor))
        resumed = list(pages("filter", {"filter": {"author.id": "A5017898742"}}, cursor=saved))

        assert len(mock.calls) == 3
    assert [len(p.payloads) for p in all_pages] == [5, 4]
    assert all_pages[0].next_cursor == {"step": 0, "cursor": "CURSOR2"}
    assert all_pages[1].next_cursor is None
    assert all_pages[0].total == 9
    assert [p.payloads for p in resumed] == [all_pages[1].payloads]


def test_author_kind_yields_author_then_works_and_resumes(real_fixtures, quick):
    author = load(real_fixtures, "authors__A5017898742__joseph-mearman__2025-10.json")
    works = load(real_fixtures, AUTHOR_WORKS)
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/authors/A5017898742", json=author)
        mock.get(f"{API}/works", json=works, match=[works_params("author.id:A5017898742")])

        result = list(pages("author", {"id": "https://openalex.org/A5017898742"}))
        resumed = list(pages("author", {"id": "A5017898742"}, cursor=result[0].next_cursor))

        assert [c.request.url.split("?")[0] for c in mock.calls] == [
            f"{API}/authors/A5017898742",
            f"{API}/works",
            f"{API}/works",
        ]
    assert [p.entity for p in result] == ["author", "work"]
    assert result[0].payloads == [author]
    assert result[0].next_cursor == {"step": 1, "cursor": "*", "author_id": "A5017898742"}
    assert result[1].next_cursor is None
    assert [p.entity for p in resumed] == ["work"]


def test_orcid_kind_resolves_the_author_first(real_fixtures, quick):
    author = load(real_fixtures, "authors__A5023888391__jason-priem__2025-06.json")
    with responses.RequestsMock() as mock:
        mock.get(re.compile(rf"{API}/authors/orcid(:|%3A)0000-0001-6187-6610$"), json=author)
        mock.get(f"{API}/works", json=list_body([]), match=[works_params("author.id:A5023888391")])

        result = list(pages("orcid", {"orcid": "https://orcid.org/0000-0001-6187-6610"}))

    assert [p.entity for p in result] == ["author", "work"]
    assert result[1].payloads == []


def test_dois_are_ored_fifty_per_request(quick):
    dois = [f"10.1234/X{n}" for n in range(120)] + ["10.1234/x0"]  # the last is a duplicate
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", json=list_body([]))

        result = list(pages("dois", {"dois": dois}))

        filters = [c.request.params["filter"] for c in mock.calls]
    assert len(result) == 3
    assert [f.count("|") + 1 for f in filters] == [50, 50, 20]
    assert filters[0].startswith("doi:https://doi.org/10.1234/x0|https://doi.org/10.1234/x1|")
    assert result[0].next_cursor == {"step": 1, "cursor": "*"}


def test_a_doi_with_a_comma_is_fetched_alone_and_may_be_missing(real_fixtures, quick):
    html = cassette_body(
        real_fixtures, "paperqa__test_does_openalex_work__not-in-openalex-404.yaml"
    )
    with responses.RequestsMock() as mock:
        mock.get(re.compile(rf"{API}/works/https.*10\.1000.*a.*b$"), status=404, body=html)

        result = list(pages("dois", {"dois": ["10.1000/a,b"]}))

    assert [(p.entity, p.payloads, p.next_cursor) for p in result] == [("work", [], None)]


def test_refresh_filters_authors_and_updated_date(quick):
    with responses.RequestsMock() as mock:
        mock.get(
            f"{API}/works",
            json=list_body([]),
            match=[works_params("author.id:A1|A2,from_updated_date:2025-01-01")],
        )

        result = list(
            pages(
                "refresh",
                {
                    "author_ids": ["A1", "https://openalex.org/A2"],
                    "from_updated_date": "2025-01-01",
                },
            )
        )

    assert len(result) == 1


def test_refresh_without_a_date_fetches_all_works_of_the_authors(quick):
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", json=list_body([]), match=[works_params("author.id:A1")])

        assert len(list(pages("refresh", {"author_ids": ["A1"]}))) == 1


def test_settings_reach_pyalex_as_headers(quick, settings):
    settings.OPENALEX_API_KEY = "secret-key"
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", json=list_body([]))

        list(pages("filter", {"filter": {"type": "article"}}))

        headers = mock.calls[0].request.headers
    assert headers["From"] == "team@example.org"
    assert headers["Authorization"] == "Bearer secret-key"


@pytest.mark.parametrize(
    ("kind", "parameters", "cursor"),
    [
        ("nonsense", {}, None),
        ("author", {"id": "W1"}, None),
        ("orcid", {"orcid": "0000-0000-0000-0000"}, None),
        ("refresh", {"author_ids": ["A1"], "from_updated_date": "yesterday"}, None),
        ("filter", {"filter": {"type": "article"}}, {"step": 3, "cursor": "*"}),
        ("author", {"id": "A1"}, {"step": 1, "cursor": "*"}),  # no author id saved
    ],
)
def test_bad_kind_parameters_or_cursor_raise_value_error(kind, parameters, cursor):
    with pytest.raises(ValueError):
        list(pages(kind, parameters, cursor=cursor))


def test_search_authors_returns_namesake_candidates(real_fixtures, quick):
    body = load(real_fixtures, "authors__search-mearman__per_page-20__2025-10.json")
    params = matchers.query_param_matcher({"search": "mearman", "per-page": "10"})
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/authors", json=body, match=[params])

        candidates = search_authors("  mearman ")

    assert len(candidates) == 8
    andrew, joseph = candidates[0], candidates[1]
    assert andrew["id"] == "A5019952124"
    assert andrew["orcid"] == "0000-0003-0601-8060"
    assert andrew["institution"] == "University of Leeds"
    assert andrew["works_count"] == 106
    assert andrew["topics"] == [
        "Economic Theory and Institutions",
        "Innovations in Educational Methods",
        "Economic Theory and Policy",
    ]
    assert (joseph["display_name"], joseph["institution"]) == (
        "Joseph Mearman",
        "Bangor University",
    )
    assert candidates[3]["institution"] == ""
    json.dumps(candidates)  # plain JSON for the namesake picker

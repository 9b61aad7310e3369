"""The site speaks HTTP: validators and 304s, CORS on the read API, one shape of values."""

from __future__ import annotations

from datetime import date

import pytest

from catalogue.models import Author, Work
from config.sites import absolute_url
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def work():
    author = AuthorFactory(display_name="Ada Lovelace")
    work = WorkFactory(title="Notes on the engine", publication_date=date(1843, 9, 1))
    AuthorshipFactory(work=work, author=author, position=0)
    return work


def revalidate(client, path: str, first) -> object:
    """Ask for ``path`` again with the validators of ``first``, as a browser does."""
    client.cookies.clear()
    since = {"HTTP_IF_MODIFIED_SINCE": first["Last-Modified"]} if "Last-Modified" in first else {}
    return client.get(path, HTTP_IF_NONE_MATCH=first["ETag"], **since)


@pytest.mark.parametrize(
    "path_of",
    [
        lambda work: f"/api/v1/works/{work.pk}/",
        lambda work: f"/api/v1/authors/{work.authorships.get().author_id}/",
        lambda work: f"/works/{work.pk}/export.bib",
        lambda work: f"/works/{work.pk}/export.ris",
        lambda work: f"/researchers/{work.authorships.get().author_id}/export.bib",
    ],
    ids=["api-work", "api-author", "bibtex", "ris", "researcher-list"],
)
def test_records_answer_304_until_what_they_show_changes(client, work, path_of):
    path = path_of(work)
    first = client.get(path)
    assert first.status_code == 200, path
    assert first["ETag"].startswith('"') and first["Last-Modified"]
    again = revalidate(client, path, first)
    assert again.status_code == 304
    assert again["ETag"] == first["ETag"]
    assert again.content == b""

    Author.objects.filter(pk=work.authorships.get().author_id).get().save()  # renewed
    changed = revalidate(client, path, first)
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]


def test_a_work_answer_changes_with_its_title(client, work):
    path = f"/api/v1/works/{work.pk}/"
    first = client.get(path)
    Work.objects.get(pk=work.pk).save(update_fields=["title"])
    assert revalidate(client, path, first).status_code == 200


def test_head_is_answered_304_too(client, work):
    path = f"/api/v1/works/{work.pk}/"
    first = client.get(path)
    client.cookies.clear()
    response = client.head(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert response.status_code == 304


def test_api_lists_get_an_etag_of_their_content(client, work):
    first = client.get("/api/v1/works/")
    assert first.status_code == 200 and first["ETag"]
    assert revalidate(client, "/api/v1/works/", first).status_code == 304


@pytest.mark.parametrize("kind", ["work", "researcher"])
def test_kept_pages_answer_304_to_anonymous_visitors(client, work, page_cache, kind):
    record = work if kind == "work" else work.authorships.get().author
    path = record.get_absolute_url()
    first = client.get(path)
    assert first.status_code == 200
    etag, modified = first["ETag"], first["Last-Modified"]
    hit = client.get(path)
    assert (hit["X-Page-Cache"], hit["ETag"], hit["Last-Modified"]) == ("hit", etag, modified)
    assert revalidate(client, path, first).status_code == 304

    Work.objects.get(pk=work.pk).save()  # renews the work and its authors' pages
    fresh = revalidate(client, path, first)
    assert fresh.status_code == 200 and fresh["ETag"] != etag


def test_a_visitor_with_a_session_gets_no_304_from_the_page_cache(client, work, page_cache):
    first = client.get(work.get_absolute_url())
    client.cookies["sessionid"] = "whatever"
    response = client.get(work.get_absolute_url(), HTTP_IF_NONE_MATCH=first["ETag"])
    assert response.status_code == 200


# CORS ------------------------------------------------------------------------------------


def test_the_read_api_is_open_to_anonymous_gets_from_any_origin(client, work):
    response = client.get(f"/api/v1/works/{work.pk}/", HTTP_ORIGIN="https://elsewhere.example")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in response["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Credentials" not in response
    again = revalidate(client, f"/api/v1/works/{work.pk}/", response)
    assert again.status_code == 304 and again["Access-Control-Allow-Origin"] == "*"


def test_a_preflight_allows_reads_only(client):
    def preflight(method):
        return client.options(
            "/api/v1/works/",
            HTTP_ORIGIN="https://elsewhere.example",
            HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
            HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
        )

    allowed = preflight("GET")
    assert allowed.status_code == 204
    assert allowed["Access-Control-Allow-Origin"] == "*"
    assert allowed["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert "If-None-Match" in allowed["Access-Control-Allow-Headers"]
    refused = preflight("POST")
    assert "Access-Control-Allow-Origin" not in refused


def test_writes_and_other_paths_are_not_opened(client, staff):
    origin = {"HTTP_ORIGIN": "https://elsewhere.example"}
    assert "Access-Control-Allow-Origin" not in client.get("/", **origin)
    client.force_login(staff)
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/imports/", **origin)
    posted = client.post("/api/v1/imports/", {}, content_type="application/json", **origin)
    assert "Access-Control-Allow-Origin" not in posted


# What the API says --------------------------------------------------------------------


def _texts(value, path="") -> list[str]:
    """Paths of every "" anywhere in a JSON answer."""
    if value == "":
        return [path]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _texts(item, f"{path}.{key}")]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _texts(item, f"{path}[{i}]")]
    return []


def test_unknown_values_are_null_never_empty_text(client):
    institution = InstitutionFactory(ror=None, homepage_url="", country_code="", type="")
    author = AuthorFactory(orcid=None, last_known_institution=institution)
    work = WorkFactory(doi=None, abstract="", comments="", code_url="", journal_ref="")
    AuthorshipFactory(work=work, author=author, position=0, raw_name="")
    answers = [
        client.get(f"/api/v1/works/{work.pk}/").json(),
        client.get("/api/v1/works/").json(),
        client.get(f"/api/v1/authors/{author.pk}/").json(),
        client.get(f"/api/v1/institutions/{institution.pk}/").json(),
    ]
    for answer in answers:
        assert _texts(answer) == []
    assert answers[0]["abstract"] is None and answers[0]["doi"] is None
    assert answers[3]["homepage_url"] is None


def test_the_schema_declares_text_fields_nullable():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    properties = schema["components"]["schemas"]["WorkDetail"]["properties"]
    for name in ("abstract", "doi", "journal_ref", "code_url", "url"):
        assert properties[name].get("nullable") is True, name


def test_page_addresses_in_the_api_are_absolute(client, work, settings):
    settings.SITE_URL = "https://scholar.example.org"
    body = client.get(f"/api/v1/works/{work.pk}/").json()
    assert body["url"] == "https://scholar.example.org" + work.get_absolute_url()
    author = client.get("/api/v1/authors/").json()["results"][0]
    assert author["url"].startswith("https://scholar.example.org/researchers/")
    assert author["url"] == absolute_url(Author.objects.get(pk=author["id"]).get_absolute_url())

"""The API: schema, paging and the one error shape."""

import subprocess
import sys
from pathlib import Path

import pytest

from config.sites import absolute_url
from tests.factories import AuthorshipFactory, WorkFactory

ROOT = Path(__file__).resolve().parents[2]
ERROR_KEYS = {"status", "code", "message", "details"}

pytestmark = pytest.mark.django_db


def assert_error_shape(response, status, code):
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == ERROR_KEYS
    assert body["error"]["status"] == status
    assert body["error"]["code"] == code


def test_schema_generates_without_warnings():
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "openapi: 3" in result.stdout
    assert "/api/v1/works/" in result.stdout
    assert "Error:" in result.stdout


def test_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/authors/{id}/" in paths
    default = paths["/api/v1/works/"]["get"]["responses"]["default"]
    assert default["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    assert b"cdn" not in docs.content.lower()  # served from our static files, works offline


def test_missing_work_answers_the_error_shape(client):
    assert_error_shape(client.get("/api/v1/works/987654/"), 404, "not_found")


def test_unknown_api_address_answers_the_error_shape(client):
    assert_error_shape(client.get("/api/v1/no-such-thing/"), 404, "not_found")


def test_wrong_method_answers_the_error_shape(client):
    assert_error_shape(client.post("/api/v1/works/"), 405, "method_not_allowed")


def test_bad_page_answers_the_error_shape(client):
    assert_error_shape(client.get("/api/v1/works/?page=99"), 404, "not_found")


def test_works_are_listed_with_their_authors_in_order(client, django_assert_max_num_queries):
    work = WorkFactory(doi="10.1000/listed")
    AuthorshipFactory(work=work, position=1, author__display_name="Second Author")
    AuthorshipFactory(work=work, position=0, author__display_name="First Author")
    for _ in range(5):
        AuthorshipFactory()
    with django_assert_max_num_queries(4):
        response = client.get("/api/v1/works/")
    body = response.json()
    assert body["count"] == 6
    listed = next(item for item in body["results"] if item["doi"] == "10.1000/listed")
    assert [a["display_name"] for a in listed["authorships"]] == ["First Author", "Second Author"]
    assert listed["url"] == absolute_url(work.get_absolute_url())

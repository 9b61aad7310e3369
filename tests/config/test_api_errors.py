"""The API's error messages, and its answer to filter values that do not validate."""

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework.test import APIRequestFactory

from config.api import exception_handler
from tests.config.test_api import assert_error_shape
from tests.factories import AuthorFactory, WorkFactory

pytestmark = pytest.mark.django_db


def test_a_missing_record_says_not_found(client):
    response = client.get("/api/v1/works/987654/")
    assert_error_shape(response, 404, "not_found")
    assert response.json()["error"]["message"] == "Not found."


def test_a_missing_author_s_trust_says_not_found(client):
    response = client.get("/api/v1/authors/987654/trust/")
    assert_error_shape(response, 404, "not_found")
    assert response.json()["error"]["message"] == "Not found."


@pytest.mark.parametrize(
    ("raised", "status", "code", "message"),
    [
        (Http404("No Work matches the given query."), 404, "not_found", "Not found."),
        (
            PermissionDenied("internal reason"),
            403,
            "permission_denied",
            "You do not have permission to perform this action.",
        ),
    ],
)
def test_django_s_own_404_and_403_get_the_documented_messages(raised, status, code, message):
    context = {"request": APIRequestFactory().get("/api/v1/works/")}
    response = exception_handler(raised, context)
    assert response.status_code == status
    assert response.data["error"] == {
        "status": status,
        "code": code,
        "message": message,
        "details": None,
    }


@pytest.mark.parametrize(
    "query",
    [
        "page_size=-5",
        "page_size=0",
        "page_size=abc",
        "page_size=101",
        "page=abc",
        "has_code=maybe",
        "year_from=abc",
        "type=x",
        "topic=abc",
        "sort=password",
    ],
)
@pytest.mark.parametrize("url", ["/api/v1/works/", "/api/v1/authors/{author}/works/"])
def test_a_filter_value_that_does_not_validate_is_400(client, url, query):
    author = AuthorFactory()
    response = client.get(url.format(author=author.pk) + "?" + query)
    assert_error_shape(response, 400, "invalid")
    assert query.split("=")[0] in response.json()["error"]["details"]


@pytest.mark.parametrize(
    "url", ["/api/v1/authors/", "/api/v1/topics/", "/api/v1/institutions/", "/api/v1/follows/"]
)
def test_every_list_refuses_a_page_size_out_of_range(client, django_user_model, url):
    client.force_login(django_user_model.objects.create_user("zed", "zed@example.org", "pw"))
    assert_error_shape(client.get(url + "?page_size=-5"), 400, "invalid")
    assert client.get(url + "?page_size=100").status_code == 200


def test_valid_values_still_answer(client):
    WorkFactory(code_url="https://github.com/example/repo")
    for query in ("page_size=1", "page=last", "has_code=true", "has_code=false", "format=json", ""):
        assert client.get("/api/v1/works/?" + query).status_code == 200, query
    # An unknown name is refused (tests/config/test_api_strict.py), not ignored.
    assert client.get("/api/v1/works/?year=abc").status_code == 400
    assert client.get("/api/v1/works/?page=99").status_code == 404  # past the last page
    assert client.get("/api/v1/works/?has_code=true").json()["count"] == 1
    assert client.get("/api/v1/works/?has_code=false").json()["count"] == 0

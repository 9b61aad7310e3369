"""No public URL answers 500 to a malformed value, and the API reads only what it documents.

Every route under /api/v1/ is taken from the URL resolver (a new one is covered
without being listed here) and every query parameter from the generated schema.
Path values that are no id, query values of every hostile kind, and query
parameters the endpoint does not read all answer 4xx in the one error shape.
Sign-in with a provider that is not set up (ORCID without ORCID_CLIENT_ID) is a 404.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator

from catalogue.models import ImportRun, Topic
from config.api import Pagination
from graph.neighbourhood import SHOWABLE
from profiles.models import Follow
from tests.config.test_api import ERROR_KEYS
from tests.factories import AuthorshipFactory, InstitutionFactory, WorkFactory
from tests.people import person, signed_in, with_orcid

pytestmark = pytest.mark.django_db

# Values an attacker or a careless client puts where an id or a number belongs.
HOSTILE = [
    "abc",
    "1,2",
    "-1",
    "0",
    "1.5",
    "99999999999999999999",
    "9223372036854775808",  # one past the largest 64-bit id
    "%00",
    "%EF%BC%91",  # a full-width digit one: int() reads it, the database does not
    "%20",
    "",
]
UNKNOWN = "zz_not_a_parameter"


def _routes(patterns, prefix: str = "") -> list[tuple[str, list[str], object]]:
    """(URL name, path parameters, view) of every pattern, recursing into includes."""
    found = []
    for pattern in patterns:
        params = list(pattern.pattern.regex.groupindex)
        if isinstance(pattern, URLResolver):
            namespace = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            found += [
                (name, params + inner, view)
                for name, inner, view in _routes(pattern.url_patterns, namespace)
            ]
        elif isinstance(pattern, URLPattern):
            assert pattern.name, f"an unnamed API route: {pattern.pattern}"
            found.append((prefix + pattern.name, params, pattern.callback))
    return found


def api_routes() -> list[tuple[str, list[str], object]]:
    api = next(p for p in get_resolver().url_patterns if getattr(p, "namespace", "") == "api")
    return _routes(api.url_patterns, "api:")


def _methods(view) -> list[str]:
    if getattr(view, "actions", None):
        return sorted(view.actions)
    cls = view.cls
    return [m for m in cls.http_method_names if m not in ("options", "head") and hasattr(cls, m)]


def _markers(params: list[str]) -> dict[str, str]:
    # A digit string each (ids and <int:> accept them); "json" for a format suffix.
    return {p: "json" if p == "format" else str(7_770_001 + i) for i, p in enumerate(params)}


def _path(name: str, params: list[str], values: dict[str, str]) -> str:
    """The route's path with each parameter set to ``values[param]`` (raw, as sent)."""
    markers = _markers(params)
    path = reverse(name, kwargs=markers)
    for param, marker in markers.items():
        path = path.replace(marker, values[param], 1)
    return path


def _good(params: list[str], ids: dict[str, str] | None = None) -> dict[str, str]:
    return {p: "json" if p == "format" else (ids or {}).get(p, "1") for p in params}


ROUTES = api_routes()
CASES = [
    pytest.param(name, params, method, id=f"{method} {name}")
    for name, params, view in ROUTES
    for method in _methods(view)
]


def assert_in_error_shape(response, *, url: str = "") -> dict:
    assert response.status_code < 500, f"{url} answered {response.status_code}"
    assert response.status_code >= 400, f"{url} answered {response.status_code}"
    assert response["Content-Type"].startswith("application/json"), url
    body = response.json()
    assert set(body) == {"error"}, url
    assert set(body["error"]) == ERROR_KEYS, url
    assert body["error"]["status"] == response.status_code, url
    assert isinstance(body["error"]["code"], str) and isinstance(body["error"]["message"], str)
    return body["error"]


def _send(client: Client, method: str, url: str):
    return client.generic(method.upper(), url, data="{}", content_type="application/json")


@pytest.fixture
def clients(staff) -> dict[str, Client]:
    """Anonymous, and a superuser whom no permission stops before the lookup."""
    anonymous = Client(raise_request_exception=False)
    superuser = signed_in(staff)
    superuser.raise_request_exception = False
    return {"anonymous": anonymous, "superuser": superuser}


def test_the_walk_finds_the_routes_that_answered_500():
    names = {name for name, _, _ in ROUTES}
    assert {"api:work-references", "api:work-cited-by", "api:author-graph"} <= names
    assert len(CASES) >= 25


@pytest.mark.parametrize(("name", "params", "method"), [c for c in CASES if c.values[1]])
def test_no_malformed_path_value_answers_a_server_error(clients, name, params, method):
    for target in params:
        for value in HOSTILE:
            values = {**_good(params), target: value}
            url = _path(name, params, values)
            for client in clients.values():
                assert_in_error_shape(_send(client, method, url), url=f"{method} {url}")


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/works/abc/references/",
        "/api/v1/works/abc/cited-by/",
        "/api/v1/works/1,2/references/",
        "/api/v1/works/1,2/cited-by/",
    ],
)
def test_the_reported_urls_are_not_found(client, url):
    client.raise_request_exception = False
    assert assert_in_error_shape(client.get(url), url=url)["code"] == "not_found"


@pytest.mark.parametrize(("name", "params", "method"), CASES)
def test_an_unknown_query_parameter_is_refused_naming_it(clients, name, params, method):
    url = f"{_path(name, params, _good(params))}?{UNKNOWN}=2020"
    error = assert_in_error_shape(_send(clients["superuser"], method, url), url=url)
    assert error["status"] == 400, f"{method} {url}"
    assert list(error["details"]) == [UNKNOWN]
    assert "Unknown query parameter" in error["details"][UNKNOWN][0]


def test_a_misspelt_filter_no_longer_lists_everything(client):
    WorkFactory(publication_year=2019)
    response = client.get("/api/v1/works/", {"yeer": "2020"})
    error = assert_in_error_shape(response)
    assert error["code"] == "invalid"
    assert "yeer" in error["details"]
    assert "year_from" in error["details"]["yeer"][0]  # it says what the endpoint reads


def test_the_format_parameter_is_still_read(client):
    assert client.get("/api/v1/works/", {"format": "json"}).status_code == 200


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema: dict) -> list[tuple[str, str, dict]]:
    return [
        (path, method, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if path.startswith("/api/v1/")
    ]


@pytest.fixture
def records(staff) -> dict[str, str]:
    """One record of each kind, so detail routes reach their code, not a 404."""
    work = WorkFactory(publication_year=2020)
    authorship = AuthorshipFactory(work=work)
    topic = Topic.objects.create(key="arxiv:cs.LG", name="Machine learning", kind="arxiv")
    institution = InstitutionFactory()
    run = ImportRun.objects.create(source="openalex", kind="author", parameters={"id": "A1"})
    Follow.objects.create(user=staff, author=authorship.author)
    return {
        "authors": str(authorship.author.pk),
        "works": str(work.pk),
        "topics": str(topic.pk),
        "institutions": str(institution.pk),
        "imports": str(run.pk),
        "follows": str(authorship.author.pk),
    }


def _filled(path: str, records: dict[str, str]) -> str:
    collection = path.split("/")[3]
    for segment in path.split("/"):
        if segment.startswith("{"):
            path = path.replace(segment, records.get(collection, "1"), 1)
    return path


def _query_operations(schema: dict) -> list[tuple[str, str, list[str]]]:
    operations = []
    for path, method, operation in _operations(schema):
        names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
        if names:
            operations.append((path, method, names))
    return operations


def test_every_documented_query_parameter_is_read(schema, records, staff):
    client = signed_in(staff)
    operations = _query_operations(schema)
    assert len(operations) >= 10
    for path, method, names in operations:
        url = _filled(path, records)
        for name in names:
            response = _send(client, method, f"{url}?{name}=1")
            details = response.json().get("error", {}).get("details") or {}
            assert "Unknown query parameter" not in str(details.get(name, "")), f"{url}?{name}"


def test_no_hostile_query_value_answers_a_server_error(schema, records, staff):
    users = [Client(raise_request_exception=False), signed_in(staff)]
    users[1].raise_request_exception = False
    for path, method, names in _query_operations(schema):
        url = _filled(path, records)
        for name in names:
            for value in HOSTILE:
                for client in users:
                    response = _send(client, method, f"{url}?{name}={value}")
                    assert response.status_code < 500, f"{method} {url}?{name}={value}"
                    if response.status_code >= 400:
                        assert_in_error_shape(response, url=f"{url}?{name}={value}")


def test_a_null_character_in_a_query_value_is_refused(client):
    error = assert_in_error_shape(client.get("/api/v1/works/?topic=a%00b"))
    assert error["details"] == {"topic": ["Null characters are not allowed."]}


def _query_parameter(schema: dict, path: str, name: str) -> dict:
    parameters = schema["paths"][path]["get"]["parameters"]
    return next(p for p in parameters if p["name"] == name and p["in"] == "query")


def test_the_schema_documents_the_page_size_bounds(schema):
    paged = [
        path
        for path, method, operation in _operations(schema)
        if any(p["name"] == "page_size" for p in operation.get("parameters", []))
    ]
    assert "/api/v1/works/{id}/references/" in paged
    for path in paged:
        size = _query_parameter(schema, path, "page_size")["schema"]
        assert (size["minimum"], size["maximum"]) == (1, Pagination.max_page_size), path
        assert _query_parameter(schema, path, "page")["schema"]["minimum"] == 1


def test_the_schema_documents_the_graph_kinds_as_an_enum(schema):
    kinds = _query_parameter(schema, "/api/v1/authors/{id}/graph/", "kinds")
    assert kinds["schema"]["items"]["enum"] == list(SHOWABLE)
    assert (kinds["style"], kinds["explode"]) == ("form", False)  # kinds=person,paper


@pytest.mark.parametrize("value", ["person,paper", "citations"])
def test_the_documented_kinds_are_accepted(client, value):
    author = AuthorshipFactory().author
    response = client.get(f"/api/v1/authors/{author.pk}/graph/", {"kinds": value})
    assert response.status_code == 200


def test_a_kind_outside_the_enum_is_refused(client):
    author = AuthorshipFactory().author
    response = client.get(f"/api/v1/authors/{author.pk}/graph/", {"kinds": "person,robot"})
    assert "kinds" in assert_in_error_shape(response)["details"]


# ORCID sign-in without an app ------------------------------------------------------

ORCID_URLS = ["/accounts/orcid/login/", "/accounts/orcid/login/callback/"]


@pytest.mark.parametrize("url", ORCID_URLS)
@pytest.mark.parametrize("method", ["get", "post"])
def test_orcid_sign_in_that_is_not_set_up_is_not_found(url, method):
    client = Client(raise_request_exception=False)
    response = getattr(client, method)(url, {"process": "login"})
    assert response.status_code == 404


@pytest.mark.parametrize("url", ORCID_URLS)
def test_orcid_sign_in_is_not_found_for_a_signed_in_member_either(url):
    client = signed_in(person("member"))
    client.raise_request_exception = False
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("url", ["/accounts/login/", "/accounts/signup/"])
def test_no_orcid_button_without_an_app(client, url):
    page = client.get(url).content.decode()
    assert "with ORCID" not in page
    assert "/accounts/orcid/" not in page


@pytest.mark.parametrize("url", ["/accounts/login/", "/accounts/signup/"])
def test_the_orcid_button_shows_once_an_app_is_set_up(client, orcid_app, url):
    page = client.get(url).content.decode()
    assert "with ORCID" in page
    assert client.get("/accounts/orcid/login/").status_code == 200


def test_a_connected_orcid_still_lists_once_the_app_is_gone():
    client = signed_in(with_orcid(person("member")))
    page = client.get(reverse("socialaccount_connections"))
    assert page.status_code == 200
    assert "ORCID sign-in is not set up on this site." in page.content.decode()

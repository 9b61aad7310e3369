"""The API schema tells the truth: it validates, and says what the API really answers."""

from __future__ import annotations

import re

import pytest
from django.db import models
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate
from rest_framework import serializers

from pages.api import works as publications_api

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _properties(schema: dict, component: str) -> dict:
    return schema["components"]["schemas"][component]["properties"]


def test_the_schema_passes_an_openapi_validator(schema):
    validate(schema)


def test_every_path_parameter_is_in_its_path(schema):
    for path, operations in schema["paths"].items():
        in_path = set(re.findall(r"{(\w+)}", path))
        for method, operation in operations.items():
            declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert declared == in_path, f"{method.upper()} {path} declares {declared}"


def test_the_graph_of_an_author_declares_only_its_id(schema):
    operation = schema["paths"]["/api/v1/authors/{id}/graph/"]["get"]
    assert [p["name"] for p in operation["parameters"] if p["in"] == "path"] == ["id"]


@pytest.mark.parametrize(
    ("component", "field"),
    [("Author", "last_known_institution"), ("Work", "venue"), ("Topic", "parent")],
)
def test_fields_that_can_be_empty_are_nullable(schema, component, field):
    assert _properties(schema, component)[field].get("nullable") is True


def _nullable_relations(serializer: serializers.ModelSerializer) -> list[str]:
    """Fields of ``serializer`` read through a foreign key that may be null."""
    model = serializer.Meta.model
    names = []
    for name, field in serializer.fields.items():
        first = (field.source or name).split(".")[0]
        try:
            model_field = model._meta.get_field(first)
        except Exception:  # a method or property, not a column
            continue
        if isinstance(model_field, models.ForeignKey) and model_field.null:
            names.append(name)
    return names


def test_every_field_read_through_a_nullable_foreign_key_is_nullable(schema):
    checked = 0
    for serializer_class in vars(publications_api).values():
        if not (
            isinstance(serializer_class, type)
            and issubclass(serializer_class, serializers.ModelSerializer)
            and serializer_class.__module__ == publications_api.__name__
        ):
            continue
        component = serializer_class.__name__.removesuffix("Serializer")
        if component not in schema["components"]["schemas"]:
            continue
        for name in _nullable_relations(serializer_class()):
            prop = _properties(schema, component)[name]
            assert prop.get("nullable") is True, f"{component}.{name} can be null"
            checked += 1
    assert checked >= 3


def test_import_kinds_include_recorded_files(schema):
    assert "file" in schema["components"]["schemas"]["ImportRunKindEnum"]["enum"]


def test_a_file_import_is_refused_through_the_api_in_the_error_shape(client, staff):
    client.force_login(staff)
    body = {"source": "openalex", "kind": "file", "parameters": {"paths": ["/etc/passwd"]}}
    response = client.post("/api/v1/imports/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert "kind" in response.json()["error"]["details"]


def test_a_listed_file_import_matches_the_schema(client, staff):
    from catalogue.models import ImportRun

    ImportRun.objects.create(source="openalex", kind="file", parameters={"paths": ["x"]})
    client.force_login(staff)
    assert client.get("/api/v1/imports/").json()["results"][0]["kind"] == "file"


def test_a_request_larger_than_the_server_accepts_answers_the_error_shape(client, settings, staff):
    client.force_login(staff)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"query": "' + "x" * 5000 + '"}'
    response = client.post("/api/v1/imports/", body, content_type="application/json")
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "status": 413,
            "code": "too_large",
            "message": "The request is larger than the server accepts.",
            "details": {"max_bytes": 1000},
        }
    }


def test_a_page_larger_than_the_server_accepts_answers_a_page(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post("/accounts/login/", {"login": "x" * 5000, "password": "y"})
    assert response.status_code == 400
    assert "could not be read" in response.content.decode()

"""Request bodies the API cannot read answer 400 parse_error in the one error shape."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from profiles.models import Follow
from tests.config.test_api import assert_error_shape
from tests.factories import AuthorFactory
from tests.people import person

pytestmark = pytest.mark.django_db

FOLLOWS = "/api/v1/follows/"
DEPTH = 100_000


@pytest.fixture
def client():
    api = APIClient()
    key = Token.objects.create(user=person("zed")).key
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


@pytest.mark.parametrize(
    "body",
    ["[" * DEPTH + "]" * DEPTH, '{"a":' * DEPTH + "1" + "}" * DEPTH],
    ids=["arrays", "objects"],
)
def test_a_deeply_nested_body_is_a_parse_error(client, body):
    response = client.post(FOLLOWS, body, content_type="application/json")
    assert_error_shape(response, 400, "parse_error")
    assert "nested too deeply" in response.json()["error"]["message"]
    assert not Follow.objects.exists()


def test_a_malformed_body_is_a_parse_error(client):
    response = client.post(FOLLOWS, '{"author": ', content_type="application/json")
    assert_error_shape(response, 400, "parse_error")


def test_a_well_formed_body_still_reads(client):
    author = AuthorFactory()
    response = client.post(FOLLOWS, {"author": author.pk}, format="json")
    assert response.status_code == 201

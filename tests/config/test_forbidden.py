"""A refusal (403) outside a view's own handling: the site's page, JSON under /api/."""

import json

import pytest
from django.test import override_settings

from tests.people import person

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.config.forbidden_urls")]


def test_a_page_refusal_is_the_site_s_styled_page(client):
    response = client.get("/forbidden/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "This page is not open to you" in html
    assert 'class="site-header"' in html and 'class="site-footer"' in html
    assert "/accounts/login/?next=/forbidden/" in html
    assert "a message for the logs" not in html


def test_a_signed_in_member_is_told_who_they_are(client):
    client.force_login(person("ada"))
    html = client.get("/forbidden/").content.decode()
    assert "signed in as ada" in html and "/accounts/login/" not in html.split("<main")[1]


def test_an_api_refusal_answers_json(client):
    response = client.get("/api/v1/forbidden/")
    assert response.status_code == 403
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert body["error"]["status"] == 403 and body["error"]["code"] == "permission_denied"
    assert "<html" not in response.content.decode()


@override_settings(DEBUG=True)
def test_the_page_is_the_same_with_debug_on(client):
    assert "This page is not open to you" in client.get("/forbidden/").content.decode()

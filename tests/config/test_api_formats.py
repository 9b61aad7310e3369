"""The API answers JSON only: any other asked-for format is 406 in the one error shape."""

import pytest

from tests.config.test_api import assert_error_shape

pytestmark = pytest.mark.django_db

LISTS = ["/api/v1/works/", "/api/v1/authors/", "/api/v1/topics/", "/api/v1/institutions/"]
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("url", LISTS)
def test_a_browser_gets_json(client, url):
    response = client.get(url, HTTP_ACCEPT=BROWSER)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "results" in response.json()


@pytest.mark.parametrize("url", LISTS)
def test_asking_for_html_only_is_not_acceptable(client, url):
    assert_error_shape(client.get(url, HTTP_ACCEPT="text/html"), 406, "not_acceptable")


@pytest.mark.parametrize("url", LISTS)
def test_asking_for_the_browsable_format_is_not_acceptable(client, url):
    response = client.get(url + "?format=api", HTTP_ACCEPT=BROWSER)
    assert_error_shape(response, 406, "not_acceptable")
    assert client.get(url + "?format=json").status_code == 200


def test_a_missing_record_asked_for_as_html_is_still_the_error_shape(client):
    response = client.get("/api/v1/works/987654/", HTTP_ACCEPT=BROWSER)
    assert_error_shape(response, 404, "not_found")

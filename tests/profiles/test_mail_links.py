"""Links in account mails start with SITE_URL, never with the request's Host header."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from tests.people import person

pytestmark = pytest.mark.django_db

SITE = "https://scholar.example.org"
HOSTILE_HOST = "localhost:31337"
PASSWORD = "a long and unusual passphrase 42"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


def links(message) -> list[str]:
    found = re.findall(r"https?://\S+", message.body)
    assert found, message.body
    return found


def test_a_password_reset_link_goes_to_the_public_site_whatever_the_host(client):
    person("ada", email="ada@example.org")
    response = client.post(
        reverse("account_reset_password"), {"email": "ada@example.org"}, HTTP_HOST=HOSTILE_HOST
    )
    assert response.status_code == 302
    [message] = mail.outbox
    [link] = links(message)
    assert link.startswith(SITE + "/accounts/password/reset/key/")
    assert HOSTILE_HOST not in message.body


def test_a_reset_for_an_unknown_address_links_to_the_public_site(client):
    client.post(
        reverse("account_reset_password"), {"email": "nobody@example.org"}, HTTP_HOST=HOSTILE_HOST
    )
    [message] = mail.outbox
    assert all(link.startswith(SITE + "/") for link in links(message))
    assert HOSTILE_HOST not in message.body


def test_a_confirmation_link_goes_to_the_public_site_whatever_the_host(client):
    data = {"email": "grace@example.org", "password1": PASSWORD, "password2": PASSWORD}
    client.post(reverse("account_signup"), data, HTTP_HOST=HOSTILE_HOST)
    [message] = mail.outbox
    [link] = links(message)
    assert link.startswith(SITE + "/accounts/confirm-email/")
    assert HOSTILE_HOST not in message.body


def test_signing_up_again_with_a_known_address_links_to_the_public_site(client):
    person("ada", email="ada@example.org")
    data = {"email": "ada@example.org", "password1": PASSWORD, "password2": PASSWORD}
    client.post(reverse("account_signup"), data, HTTP_HOST=HOSTILE_HOST)
    [message] = mail.outbox
    assert all(link.startswith(SITE + "/") for link in links(message))
    assert HOSTILE_HOST not in message.body

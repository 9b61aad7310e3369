"""Admin sign-in is limited like the site's: failures pause the account+address pair for a while."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import F
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
ADMIN_LOGIN = "/admin/login/"
ATTACKER = "198.51.100.23"


@pytest.fixture
def curator():
    return UserFactory(username="curator", is_staff=True, is_superuser=True)


def admin_sign_in(client: Client, password: str, *, address: str = ATTACKER, username="curator"):
    return client.post(
        ADMIN_LOGIN,
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def let_the_cool_off_pass():
    AccessAttempt.objects.update(
        attempt_time=F("attempt_time") - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )


def test_forty_wrong_passwords_then_the_right_one_is_refused(curator):
    client = Client()
    codes = [admin_sign_in(client, f"guess-{n}").status_code for n in range(40)]
    assert codes[: settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert set(codes[settings.AXES_FAILURE_LIMIT :]) == {429}
    response = admin_sign_in(client, PASSWORD)
    assert response.status_code == 429
    assert not signed_in(client)
    page = response.content.decode()
    assert "Sign-in paused" in page and "5 minutes" in page
    assert response["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))


def test_after_the_cool_off_the_right_password_works(curator):
    client = Client()
    for n in range(40):
        admin_sign_in(client, f"guess-{n}")
    assert admin_sign_in(client, PASSWORD).status_code == 429
    let_the_cool_off_pass()
    response = admin_sign_in(client, PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert signed_in(client)


def test_failures_while_paused_do_not_extend_the_pause(curator):
    client = Client()
    for n in range(settings.AXES_FAILURE_LIMIT):
        admin_sign_in(client, f"guess-{n}")
    first = AccessAttempt.objects.get().attempt_time
    for n in range(10):
        assert admin_sign_in(client, f"more-{n}").status_code == 429
    assert AccessAttempt.objects.get().attempt_time == first


def test_the_real_admin_from_another_address_is_not_locked_out(curator):
    for n in range(40):
        admin_sign_in(Client(), f"guess-{n}")
    client = Client()
    response = admin_sign_in(client, PASSWORD, address="192.0.2.5")
    assert response.status_code == 302
    assert signed_in(client)


def test_a_forged_forwarded_header_does_not_escape_the_pause(curator, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    client = Client()
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            ADMIN_LOGIN,
            {"username": "curator", "password": f"guess-{n}"},
            REMOTE_ADDR=ATTACKER,
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",
        )
    response = client.post(
        ADMIN_LOGIN,
        {"username": "curator", "password": PASSWORD},
        REMOTE_ADDR=ATTACKER,
        HTTP_X_FORWARDED_FOR="203.0.113.200",
    )
    assert response.status_code == 429


def test_the_password_tried_is_not_kept(curator):
    admin_sign_in(Client(), "hunter2-admin-guess")
    attempt = AccessAttempt.objects.get()
    assert "hunter2-admin-guess" not in attempt.post_data
    assert attempt.ip_address == ATTACKER


def test_site_sign_in_is_left_to_allauth(curator):
    client = Client()
    for n in range(3):
        response = client.post(
            reverse("account_login"), {"login": curator.email, "password": f"guess-{n}"}
        )
        assert response.status_code == 200
    assert not AccessAttempt.objects.exists()


def test_site_sign_in_still_works(curator):
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=curator, email=curator.email, verified=True, primary=True)
    client = Client()
    response = client.post(reverse("account_login"), {"login": curator.email, "password": PASSWORD})
    assert response.status_code == 302
    assert signed_in(client)


def test_site_and_admin_share_one_failure_limit():
    from allauth.account import app_settings

    limit = settings.AXES_FAILURE_LIMIT
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert f"{limit}/{seconds}s/key" in app_settings.RATE_LIMITS["login_failed"]

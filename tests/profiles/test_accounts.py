"""Accounts: sign-up with a confirmed email, sign-in, password reset without enumeration, ORCID."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse
from responses import matchers

from catalogue.models import AuthorInstitution
from profiles.claims import proof
from profiles.claims import services as claims
from profiles.models import Claim
from tests.factories import AuthorFactory, InstitutionFactory
from tests.people import ORCID, person

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a long and unusual passphrase 42"
TOKEN_URL = "https://pub.orcid.org/oauth/token"
RECORD_URL = f"https://pub.orcid.org/v3.0/{ORCID}/record"


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0)


def path_of(url: str) -> str:
    return urlsplit(url).path


def sign_up(client, email: str = "ada@example.org", **extra):
    data = {"email": email, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD, **extra}
    return client.post(reverse("account_signup"), data)


# Sign-up, confirmation, sign-in ------------------------------------------------------------------


def test_sign_up_asks_to_confirm_the_email_and_the_link_signs_in(client):
    response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    page = client.get(response["Location"]).content.decode()
    assert "Check your email" in page and "Skip to content" in page  # our layout
    assert not client.get(reverse("profiles:claim_list")).wsgi_request.user.is_authenticated

    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ada@example.org"]
    assert message.subject.startswith("[Scholar Pages] ")
    confirm = path_of(link_in(message))
    page = client.get(confirm).content.decode()
    assert "Confirm that <strong>ada@example.org</strong> is your address." in page
    response = client.post(confirm)
    assert response.status_code == 302
    assert EmailAddress.objects.get(email="ada@example.org").verified
    assert client.get(reverse("profiles:claim_list")).status_code == 200  # signed in now


def test_signing_in_before_confirming_sends_to_the_confirmation_page(client):
    sign_up(client)
    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "ada@example.org", "password": NEW_PASSWORD}
    )
    assert response["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session


def test_sign_in_with_a_wrong_password_says_so_and_keeps_the_address(client):
    person("ada", email="ada@example.org")
    response = client.post(reverse("account_login"), {"login": "ada@example.org", "password": "x"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "The email address and/or password you specified are not correct." in page
    assert 'value="ada@example.org"' in page


def test_sign_in_comes_back_to_the_page_asked_for(client):
    person("ada", email="ada@example.org")
    author = AuthorFactory()
    back = author.get_absolute_url()
    page = client.get(f"{reverse('account_login')}?next={back}").content.decode()
    assert f'name="next" value="{back}"' in page
    response = client.post(
        reverse("account_login"),
        {"login": "ada@example.org", "password": "correct horse battery staple", "next": back},
    )
    assert response["Location"] == back


def test_an_address_already_in_use_is_not_revealed_at_sign_up(client):
    person("ada", email="ada@example.org")
    response = sign_up(client)
    assert response["Location"] == reverse("account_email_verification_sent")
    assert get_user_model().objects.filter(email="ada@example.org").count() == 1
    assert "already exists" in mail.outbox[0].body  # told by email, to the owner of the address


def test_password_reset_answers_the_same_for_known_and_unknown_addresses(client):
    person("ada", email="ada@example.org")
    known = client.post(reverse("account_reset_password"), {"email": "ada@example.org"})
    unknown = client.post(reverse("account_reset_password"), {"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"] == reverse("account_reset_password_done")
    to_known, to_unknown = mail.outbox
    assert to_known.to == ["ada@example.org"] and "/accounts/password/reset/key/" in to_known.body
    assert to_unknown.to == ["nobody@example.org"] and "/password/reset/key/" not in to_unknown.body


def test_a_password_reset_link_sets_a_new_password(client):
    person("ada", email="ada@example.org")
    client.post(reverse("account_reset_password"), {"email": "ada@example.org"})
    response = client.get(path_of(link_in(mail.outbox[0])), follow=True)
    form_url = response.redirect_chain[-1][0]
    assert "Choose a new password" in response.content.decode()
    done = client.post(form_url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert done["Location"] == reverse("account_reset_password_from_key_done")
    assert get_user_model().objects.get(username="ada").check_password(NEW_PASSWORD)


def test_account_pages_use_the_site_layout_and_csrf(client):
    for name in ["account_login", "account_signup", "account_reset_password"]:
        page = client.get(reverse(name)).content.decode()
        assert "Skip to content" in page and 'class="account-page"' in page
        assert 'name="csrfmiddlewaretoken"' in page
        assert "Menu:" not in page  # allauth's bare layout is not used


def test_an_added_institutional_address_counts_as_evidence_once_confirmed(client):
    author = AuthorFactory()
    AuthorInstitution.objects.create(
        author=author, institution=InstitutionFactory(homepage_domain="umich.edu")
    )
    user = person("ada", email="ada@example.org")
    client.force_login(user)
    client.post(reverse("account_email"), {"action_add": "", "email": "ada@umich.edu"})
    claim_url = reverse("profiles:claim", args=[author.pk])
    assert "Confirm ada@umich.edu first" in client.get(claim_url).content.decode()
    client.post(path_of(link_in(mail.outbox[-1])))
    client.post(claim_url, {"method": "email"})
    claim = Claim.objects.get(user=user)
    assert (claim.status, claim.verified_email) == ("pending", "ada@umich.edu")
    assert claim.evidence.startswith("confirmed address at umich.edu, the record's institution")


# ORCID, with ORCID's token and record endpoints replayed ---------------------------------------


def orcid_replies(mock, *, orcid: str = ORCID, email: str | None = None):
    mock.post(
        TOKEN_URL,
        json={
            "access_token": "replayed-token",
            "token_type": "bearer",
            "refresh_token": "replayed-refresh",
            "expires_in": 631138518,
            "scope": "/authenticate",
            "name": "Grace Hopper",
            "orcid": orcid,
        },
    )
    emails = [{"email": email, "verified": True, "primary": True}] if email else []
    mock.get(
        f"https://pub.orcid.org/v3.0/{orcid}/record",
        json={
            "orcid-identifier": {
                "uri": f"https://orcid.org/{orcid}",
                "path": orcid,
                "host": "orcid.org",
            },
            "person": {
                "name": {
                    "given-names": {"value": "Grace"},
                    "family-name": {"value": "Hopper"},
                },
                "emails": {"email": emails},
            },
        },
        match=[matchers.header_matcher({"accept": "application/orcid+json"})],
    )


def orcid_round_trip(client, process: str, next_url: str):
    """Press the ORCID button, then come back from ORCID with a code (replayed)."""
    start = client.post(f"{reverse('orcid_login')}?process={process}&next={next_url}")
    assert start.status_code == 302
    authorize = urlsplit(start["Location"])
    assert (authorize.netloc, authorize.path) == ("orcid.org", "/oauth/authorize")
    query = parse_qs(authorize.query)
    assert query["scope"] == ["/authenticate"] and query["client_id"] == ["APP-TEST"]
    with responses.RequestsMock() as mock:
        orcid_replies(mock)
        back = client.get(
            reverse("orcid_callback"), {"code": "replayed-code", "state": query["state"][0]}
        )
        token_call = mock.calls[0].request
        assert "code=replayed-code" in token_call.body
        assert "client_secret=not-a-real-secret" in token_call.body
    return back


def test_connecting_orcid_proves_the_id_and_a_claim_by_orcid_is_approved(client, orcid_app):
    author = AuthorFactory(orcid=ORCID)
    user = person("grace")
    client.force_login(user)
    claim_url = reverse("profiles:claim", args=[author.pk])
    page = client.get(claim_url).content.decode()
    assert "sign in with ORCID to prove it is yours" in page
    assert f'action="{reverse("orcid_login")}?process=connect' in page

    back = orcid_round_trip(client, "connect", claim_url)
    assert back["Location"] == claim_url
    account = SocialAccount.objects.get(user=user)
    assert (account.provider, account.uid) == ("orcid", ORCID)
    assert proof.user_orcids(user) == {ORCID}

    client.post(claim_url, {"method": "orcid"})
    claim = Claim.objects.get(user=user)
    assert (claim.status, claim.verified_orcid, claims.claim_level(claim)) == (
        "approved",
        ORCID,
        3,
    )


def test_signing_up_with_orcid_asks_for_an_email_and_keeps_the_orcid(client, orcid_app):
    back = orcid_round_trip(client, "login", "/")
    assert back["Location"] == reverse("socialaccount_signup")
    page = client.get(back["Location"]).content.decode()
    assert "ORCID confirmed your iD" in page
    response = client.post(reverse("socialaccount_signup"), {"email": "grace@example.org"})
    assert response["Location"] == reverse("account_email_verification_sent")
    account = SocialAccount.objects.get(uid=ORCID)
    assert account.provider == "orcid"
    assert account.user.email == "grace@example.org"
    assert mail.outbox[-1].to == ["grace@example.org"]  # the address is confirmed as usual


def test_without_orcid_set_up_the_pages_offer_no_orcid_button(client):
    page = client.get(reverse("account_login")).content.decode()
    assert "with ORCID" not in page


def test_account_settings_pages_render_in_the_site_layout(client, orcid_app):
    user = person("ada", email="ada@example.org")
    client.force_login(user)
    emails = client.get(reverse("account_email")).content.decode()
    assert "Only you see these" in emails and "ada@example.org" in emails
    assert reverse("profiles:api_token") in emails and reverse("profiles:claim_list") in emails
    connections = client.get(reverse("socialaccount_connections")).content.decode()
    assert "No ORCID iD is connected to your account." in connections
    assert "Connect an ORCID iD" in connections
    password = client.get(reverse("account_change_password")).content.decode()
    assert "Change your password" in password and "Skip to content" in password


def test_the_header_leads_a_signed_in_member_to_their_account_settings(client):
    client.force_login(person("ada", email="ada@example.org"))
    home = client.get("/").content.decode()
    nav = home[home.index('aria-label="Account"') :]
    assert f'href="{reverse("account_email")}">Account</a>' in nav[: nav.index("</nav>")]


def test_the_email_page_calls_an_institutional_address_evidence_not_proof(client):
    client.force_login(person("ada", email="ada@example.org"))
    page = client.get(reverse("account_email")).content.decode()
    assert "can prove a claim" not in page
    assert "is evidence staff weigh" in page and "does not prove the claim by itself" in page


def test_a_single_confirmed_address_offers_no_action_that_cannot_apply(client):
    client.force_login(person("ada", email="ada@example.org"))
    page = client.get(reverse("account_email")).content.decode()
    assert "ada@example.org" in page and "Confirmed" in page and "Primary" in page
    for action in ("action_primary", "action_send", "action_remove"):
        assert f'name="{action}"' not in page
    assert 'type="radio"' not in page


def test_a_single_unconfirmed_address_can_only_be_sent_its_confirmation_again(client):
    client.force_login(person("ada", email="ada@example.org", confirmed=False))
    page = client.get(reverse("account_email")).content.decode()
    assert 'name="action_send"' in page
    assert 'name="action_primary"' not in page and 'name="action_remove"' not in page
    response = client.post(
        reverse("account_email"), {"action_send": "", "email": "ada@example.org"}
    )
    assert response.status_code == 302 and len(mail.outbox) == 1


def test_two_addresses_can_be_chosen_between(client):
    user = person("ada", email="ada@example.org")
    EmailAddress.objects.create(user=user, email="ada@umich.edu", verified=False, primary=False)
    client.force_login(user)
    page = client.get(reverse("account_email")).content.decode()
    assert page.count('type="radio"') == 2
    for action in ("action_primary", "action_send", "action_remove"):
        assert f'name="{action}"' in page


@pytest.mark.parametrize("name", ["profiles:claim_list", "profiles:api_token"])
def test_every_account_page_links_the_others(client, name):
    client.force_login(person("ada", email="ada@example.org"))
    page = client.get(reverse(name)).content.decode()
    nav = page[page.index('<nav class="account-links"') :]
    nav = nav[: nav.index("</nav>")]
    for other in ("account_email", "account_change_password", "profiles:claim_list"):
        assert f'href="{reverse(other)}"' in nav
    assert f'href="{reverse(name)}" aria-current="page"' in nav

"""The claims API: make a claim and read its status, by session or token, in the error shape."""

import pytest
import yaml
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from profiles.claims import services as claims
from profiles.models import Claim
from tests.people import ORCID, OTHER_ORCID, person, with_orcid

pytestmark = pytest.mark.django_db

CLAIMS = "/api/v1/claims/"
EVIDENCE = "My faculty page lists these papers; my lab's site shows my photo and CV."


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def evidence_claim(author) -> dict:
    return {
        "author": author.pk,
        "method": "evidence",
        "evidence": EVIDENCE,
        "links": ["https://example.edu/~grace"],
    }


def test_anonymous_callers_must_authenticate(author):
    response = APIClient().post(CLAIMS, evidence_claim(author), format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"
    assert not Claim.objects.exists()


def test_a_token_makes_a_claim_and_reads_its_status(author, staff):
    user = person("grace")
    client = token_client(user)
    response = client.post(CLAIMS, evidence_claim(author), format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "pending" and body["level"] is None
    assert body["evidence_links"] == ["https://example.edu/~grace"]
    assert client.get(f"{CLAIMS}{body['id']}/").json()["status"] == "pending"
    claims.claim_approve(claim=Claim.objects.get(pk=body["id"]), actor=staff)
    approved = client.get(f"{CLAIMS}{body['id']}/").json()
    assert (approved["status"], approved["level"]) == ("approved", 4)
    listed = client.get(CLAIMS).json()
    assert [c["id"] for c in listed["results"]] == [body["id"]]


def test_orcid_claims_are_approved_at_once_when_the_ids_match(author):
    client = token_client(with_orcid(person("grace")))
    response = client.post(CLAIMS, {"author": author.pk, "method": "orcid"}, format="json")
    assert response.status_code == 201
    assert (response.json()["status"], response.json()["level"]) == ("approved", 3)


def test_a_refused_claim_says_why_in_the_error_shape(author):
    client = token_client(with_orcid(person("x"), OTHER_ORCID))
    response = client.post(CLAIMS, {"author": author.pk, "method": "orcid"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "claim_refused"
    assert OTHER_ORCID in error["message"] and ORCID in error["message"]


def test_bad_input_is_reported_field_by_field(author):
    client = token_client(person("x"))
    response = client.post(
        CLAIMS,
        {"author": 999999, "method": "telepathy", "links": ["ftp://x"]},
        format="json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["details"]) == {"author", "method", "links"}


def test_a_second_claim_becomes_a_dispute(author, owner):
    response = token_client(person("rival")).post(CLAIMS, evidence_claim(author), format="json")
    assert response.json()["status"] == "disputed"
    assert Claim.objects.get(user=owner).status == "approved"


def test_session_calls_need_the_csrf_token(author):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(person("x"))
    response = client.post(CLAIMS, evidence_claim(author), format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]["message"]
    assert not Claim.objects.exists()


@pytest.mark.parametrize(
    ("who", "status"),
    [("stranger", 404), ("follower", 404), ("owner", 200), ("staff", 200)],
)
def test_who_may_read_a_claim(request, author, owner, who, status):
    claim = Claim.objects.get(user=owner)
    client = token_client(request.getfixturevalue(who))
    response = client.get(f"{CLAIMS}{claim.pk}/")
    assert response.status_code == status
    if status == 404:
        assert response.json()["error"]["code"] == "not_found"
    else:
        assert "grace.private@example.net" not in response.content.decode()


@pytest.mark.parametrize(
    ("who", "status"),
    [("stranger", 404), ("follower", 404), ("owner", 200), ("staff", 404)],
)
def test_only_the_claimant_withdraws(request, author, owner, who, status):
    claim = Claim.objects.get(user=owner)
    response = token_client(request.getfixturevalue(who)).post(f"{CLAIMS}{claim.pk}/withdraw/")
    assert response.status_code == status
    claim.refresh_from_db()
    assert (claim.status == "withdrawn") == (who == "owner")


def test_claims_are_rate_limited_with_the_error_shape(author):
    client = token_client(with_orcid(person("x"), OTHER_ORCID))
    data = {"author": author.pk, "method": "orcid"}
    codes = [client.post(CLAIMS, data, format="json").status_code for _ in range(11)]
    assert codes[:10] == [400] * 10
    response = client.post(CLAIMS, data, format="json")
    assert response.status_code == 429
    error = response.json()["error"]
    wait = error["details"]["retry_after"]
    assert error == {
        "status": 429,
        "code": "throttled",
        "message": "Too many requests: please wait a little and try again.",
        "details": {"retry_after": wait},
    }
    # The time left in the limit's window (claims are limited per hour), as the header says.
    assert 0 < wait <= 3600
    assert response["Retry-After"] == str(wait)


def test_the_schema_documents_claims_and_validates(tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    assert {"get", "post"} <= set(schema["paths"]["/api/v1/claims/"])
    assert "post" in schema["paths"]["/api/v1/claims/{id}/withdraw/"]
    assert "tokenAuth" in schema["components"]["securitySchemes"]
    created = schema["paths"]["/api/v1/claims/"]["post"]
    assert created["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ClaimCreate"
    )


def test_the_api_token_page_makes_a_token_shown_once(client):
    user = person("x")
    client.force_login(user)
    page = client.post("/api-token/").content.decode()
    key = Token.objects.get(user=user).key
    assert key in page
    assert key not in client.get("/api-token/").content.decode()
    response = APIClient().get(CLAIMS, HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200

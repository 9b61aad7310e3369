"""The claim rule: only ORCID sign-in approves at once; an institutional address is evidence.

A confirmed address at the domain of an institution of the record sends the claim
to staff with that evidence written first. Claims the former rule approved by
such an address alone go back to review, and their holders keep the record until
staff decide.
"""

import importlib
import re
from html import unescape

import pytest
from django.apps import apps as current_apps
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from catalogue.models import AuditEvent, AuthorInstitution
from profiles.claims import ownership
from profiles.claims import services as claims
from profiles.claims.services import ClaimError
from profiles.models import Claim, Profile
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory
from tests.people import ORCID, person, with_orcid
from trust import services
from trust.models import TrustScore

pytestmark = pytest.mark.django_db

EVIDENCE = "I am the author: my staff page at the institute lists these papers under my name."
reopening = importlib.import_module("profiles.migrations.0004_email_claims_back_to_review")


def text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def montreal_author(years=(2019, 2021, 2024), **fields):
    """A record with works at the Université de Montréal in ``years``."""
    udem = InstitutionFactory(name="Université de Montréal", homepage_domain="www.umontreal.ca")
    author = AuthorFactory(display_name="Yoshua Example", **fields)
    for year in years:
        AuthorshipFactory(author=author, work=WorkFactory(publication_year=year)).institutions.add(
            udem
        )
    return author, udem


def level(author) -> int:
    services.trust_scores_recompute(author_ids=[author.pk], reason="test")
    return TrustScore.objects.get(author=author).level


def approved_by_email_alone(user, author, email: str) -> Claim:
    """A claim as the former rule left it: approved at once by the address, no reviewer."""
    decided = timezone.now()
    claim = Claim.objects.create(
        user=user,
        author=author,
        method=Claim.Method.EMAIL,
        status=Claim.Status.APPROVED,
        verified_email=email,
        decided_at=decided,
    )
    Profile.objects.create(author=author, user=user, tagline="Deep learning")
    return claim


def reopen():
    """Run the data migration's forward step on the rows as they are."""
    reopening.email_claims_back_to_review(current_apps, None)


# The institutional email path ------------------------------------------------------------------


def test_an_institutional_address_gives_a_pending_claim_with_the_evidence_not_l3():
    author, _ = montreal_author(openalex_id="A1")
    user = person("yoshua", email="yoshua@iro.umontreal.ca")
    claim = claims.claim_create(user=user, author=author, method="email")
    assert claim.status == Claim.Status.PENDING
    assert claim.evidence.startswith(
        "confirmed address at umontreal.ca, the record's institution 2019-2024"
    )
    assert "Université de Montréal" in claim.evidence
    assert claim.verified_email == "yoshua@iro.umontreal.ca"
    assert claims.claim_level(claim) is None
    assert ownership.owned_profile(user=user, author_id=author.pk) is None
    assert level(author) == 1  # the OpenAlex id only: no claim level while pending
    assert TrustScore.objects.get(author=author).claim_status == "Claim pending review"


@pytest.mark.parametrize(
    ("years", "said"),
    [((2021,), "the record's institution 2021"), ((), "the record's institution years unknown")],
)
def test_the_years_come_from_the_authorships_at_that_institution(years, said):
    author, _ = montreal_author(years)
    other = InstitutionFactory(homepage_domain="mcgill.ca")
    AuthorshipFactory(author=author, work=WorkFactory(publication_year=2001)).institutions.add(
        other
    )
    if not years:
        AuthorInstitution.objects.create(
            author=author, institution=InstitutionFactory(homepage_domain="umontreal.ca")
        )
    user = person("y", email="y@umontreal.ca")
    claim = claims.claim_create(user=user, author=author, method="email")
    assert f"confirmed address at umontreal.ca, {said}" in claim.evidence
    assert "2001" not in claim.evidence  # another institution's years


def test_works_merged_away_do_not_count_for_the_years():
    author, udem = montreal_author((2019,))
    gone = WorkFactory(publication_year=2010, merged_into=WorkFactory())
    AuthorshipFactory(author=author, work=gone).institutions.add(udem)
    claim = claims.claim_create(
        user=person("y", email="y@umontreal.ca"), author=author, method="email"
    )
    assert "the record's institution 2019 " in claim.evidence


def test_staff_approve_an_email_claim_for_l4(staff):
    author, _ = montreal_author(openalex_id="A1")
    claim = claims.claim_create(
        user=person("y", email="y@umontreal.ca"), author=author, method="email"
    )
    claims.claim_approve(claim=claim, actor=staff)
    claim.refresh_from_db()
    assert claims.claim_level(claim) == 4
    assert level(author) == 4
    assert TrustScore.objects.get(author=author).claim_status == "Claimed, reviewed by staff"


def test_orcid_sign_in_is_still_instant_and_l3(author):
    user = with_orcid(person("grace"))
    claim = claims.claim_create(user=user, author=author, method="orcid")
    assert claim.status == Claim.Status.APPROVED and claim.reviewer is None
    assert claims.claim_level(claim) == 3
    assert level(author) == 3
    assert ownership.owned_profile(user=user, author_id=author.pk) is not None


def test_an_orcid_claim_reviewed_by_staff_is_l4(author, staff):
    rival = claims.claim_create(
        user=person("r"), author=author, method="evidence", evidence=EVIDENCE
    )
    claim = claims.claim_create(user=with_orcid(person("grace")), author=author, method="orcid")
    assert claim.status == Claim.Status.DISPUTED  # someone else was claiming
    claims.claim_reject(claim=rival, actor=staff, reason="The ORCID iD settles it.")
    claims.claim_approve(claim=claim, actor=staff)
    assert level(author) == 4


def test_the_email_method_is_refused_without_a_matching_confirmed_address():
    author, _ = montreal_author()
    with pytest.raises(ClaimError, match="umontreal.ca"):
        claims.claim_create(user=person("x", email="x@gmail.com"), author=author, method="email")
    assert not Claim.objects.exists()


# Pages -------------------------------------------------------------------------------------------


def test_the_claimant_sees_the_claim_waits_and_the_address_was_recorded(client):
    author, _ = montreal_author()
    user = person("y", email="y@umontreal.ca")
    client.force_login(user)
    response = client.post(
        reverse("profiles:claim", args=[author.pk]), {"method": "email"}, follow=True
    )
    claim = Claim.objects.get(user=user)
    assert response.redirect_chain[-1][0] == reverse("profiles:claim_detail", args=[claim.pk])
    words = text(response.content.decode())
    assert "Your claim waits for staff review" in words
    assert "y@umontreal.ca was recorded as evidence" in words
    assert "Pending review" in words and "L3" not in words
    assert "confirmed address at umontreal.ca, the record's institution 2019-2024" in words


def test_the_claim_page_says_the_rule_for_every_method(client, orcid_app):
    author, _ = montreal_author(orcid=ORCID)
    client.force_login(person("y", email="y@umontreal.ca"))
    url = reverse("profiles:claim", args=[author.pk])
    words = text(client.get(url).content.decode())
    assert "Only signing in with ORCID, when your iD is the one on this record" in words
    assert "approves a claim at once (verification level L3)" in words
    assert "is evidence, not a proof" in words
    assert "Not approved at once: your claim waits for staff review" in words
    assert "Send to staff with y@umontreal.ca as evidence" in words
    assert "sign in with ORCID to prove it is yours" in words
    assert "Describe how you can be identified" in words
    assert "A claim approved by staff is level L4, whatever its evidence" in words
    assert "Approved at once" not in words  # this user cannot prove the ORCID iD
    client.force_login(with_orcid(person("g", email="g@umontreal.ca")))
    words = text(client.get(url).content.decode())
    assert words.count("Approved at once: verification level L3") == 1  # the ORCID method


def test_the_trust_page_says_the_rule(client):
    words = text(client.get("/trust/").content.decode())
    assert "L3 Claimed and verified by the person through ORCID sign-in" in words
    assert "L4 Claimed and reviewed by staff, whatever the evidence" in words
    assert "is evidence shown to staff, never a proof by itself" in words
    assert "Signing in with the ORCID iD on the record proves the claim at once (L3" in words
    assert "or a confirmed email address at the domain of an institution you are" not in words


def test_the_panel_of_a_record_waiting_for_review_shows_no_level(client):
    author, _ = montreal_author()
    user = person("y", email="y@umontreal.ca")
    approved_by_email_alone(user, author, "y@umontreal.ca")
    reopen()
    words = text(client.get(author.get_absolute_url()).content.decode())
    assert "Claimed · waiting for staff review" in words
    assert "Claimed · waiting for staff review · L" not in words
    client.force_login(user)
    words = text(client.get(author.get_absolute_url()).content.decode())
    assert "This is your record. Your claim is back in staff review" in words
    assert "Edit your profile" in words


# Staff review ------------------------------------------------------------------------------------


def test_staff_review_shows_the_institutional_evidence_first(staff, client):
    author, _ = montreal_author()
    claim = claims.claim_create(
        user=person("y", email="y@umontreal.ca"), author=author, method="email"
    )
    client.force_login(staff)
    page = client.get(reverse("admin:profiles_claim_change", args=[claim.pk])).content.decode()
    words = text(page)
    evidence = "confirmed address at umontreal.ca, the record's institution 2019-2024"
    assert words.index(evidence) < words.index("The claim") < words.index("Method")
    assert 'id="claim-institutional-evidence"' in page
    assert "Approve claim" in page and "Reject claim" in page


def test_staff_list_claims_with_institutional_evidence_first_and_filter_them(staff, client):
    author, _ = montreal_author()
    plain = claims.claim_create(
        user=person("e"), author=AuthorFactory(), method="evidence", evidence=EVIDENCE
    )
    email = claims.claim_create(
        user=person("y", email="y@umontreal.ca"), author=author, method="email"
    )
    newer = claims.claim_create(
        user=person("n"), author=AuthorFactory(), method="evidence", evidence=EVIDENCE
    )
    client.force_login(staff)
    url = reverse("admin:profiles_claim_changelist")
    page = client.get(url).content.decode()
    rows = re.findall(r"/admin/profiles/claim/(\d+)/change/", page)
    order = list(dict.fromkeys(int(pk) for pk in rows))
    assert order == [email.pk, newer.pk, plain.pk]
    assert "Confirmed institutional address" in page
    only = client.get(url, {"evidence": "institutional"}).content.decode()
    found = {int(pk) for pk in re.findall(r"/admin/profiles/claim/(\d+)/change/", only)}
    assert found == {email.pk}
    others = client.get(url, {"evidence": "other"}).content.decode()
    found = {int(pk) for pk in re.findall(r"/admin/profiles/claim/(\d+)/change/", others)}
    assert found == {plain.pk, newer.pk}
    by_column = client.get(url, {"o": "-3"}).content.decode()  # the "institutional address" header
    rows = re.findall(r"/admin/profiles/claim/(\d+)/change/", by_column)
    assert int(rows[0]) == email.pk


# Claims approved by email alone go back to review ------------------------------------------------


def test_reopening_puts_email_claims_back_to_review_and_the_holder_keeps_the_record(staff):
    author, _ = montreal_author(openalex_id="A1")
    user = person("y", email="y@umontreal.ca")
    old = approved_by_email_alone(user, author, "y@umontreal.ca")
    assert level(author) == 1  # scoring gives an address alone no level, even before
    assert TrustScore.objects.get(author=author).claim_status == "Claim pending review"
    orcid_author = AuthorFactory(orcid=ORCID)
    by_orcid = claims.claim_create(
        user=with_orcid(person("g")), author=orcid_author, method="orcid"
    )
    reviewed = claims.claim_create(
        user=person("r", email="r@umontreal.ca"), author=montreal_author()[0], method="email"
    )
    claims.claim_approve(claim=reviewed, actor=staff)
    reopen()
    old.refresh_from_db()
    assert old.status == Claim.Status.PENDING and old.decided_at is None
    assert old.evidence.startswith(
        "confirmed address at umontreal.ca, the record's institution 2019-2024"
    )
    assert "back in staff review" in old.evidence
    profile = Profile.objects.get(author=author)
    assert profile.user == user and profile.tagline == "Deep learning"
    assert ownership.owned_profile(user=user, author_id=author.pk) == profile
    assert claims.holds_record(old)
    event = AuditEvent.objects.get(action="claim_reopen")
    assert (event.target_type, event.target_id, event.actor) == (
        "profiles.claim",
        str(old.pk),
        None,
    )
    assert event.data["before"] == "approved" and event.data["status"] == "pending"
    assert event.data["holder_keeps_record"] is True
    assert event.data["evidence"].startswith("confirmed address at umontreal.ca")
    by_orcid.refresh_from_db()
    reviewed.refresh_from_db()
    assert by_orcid.status == reviewed.status == Claim.Status.APPROVED  # untouched
    assert level(author) == 1
    reopen()  # running it again changes nothing more
    assert AuditEvent.objects.filter(action="claim_reopen").count() == 1


def test_the_holder_under_review_still_edits_the_record(client):
    author, _ = montreal_author()
    user = person("y", email="y@umontreal.ca")
    claim = approved_by_email_alone(user, author, "y@umontreal.ca")
    reopen()
    client.force_login(user)
    edit = reverse("profiles:profile_edit", args=[author.pk])
    assert client.get(edit).status_code == 200
    response = client.post(edit, {"tagline": "Still mine", "homepage": ""})
    assert response.status_code == 302
    assert Profile.objects.get(author=author).tagline == "Still mine"
    words = text(client.get(reverse("profiles:claim_detail", args=[claim.pk])).content.decode())
    assert "You keep the record and can edit it until staff decide" in words


def test_a_dispute_on_a_record_under_review_works_as_before(staff):
    author, _ = montreal_author()
    holder = person("y", email="y@umontreal.ca")
    held = approved_by_email_alone(holder, author, "y@umontreal.ca")
    reopen()
    rival = claims.claim_create(
        user=person("r"), author=author, method="evidence", evidence=EVIDENCE
    )
    held.refresh_from_db()
    assert (rival.status, held.status) == ("disputed", "disputed")
    assert Profile.objects.get(author=author).user == holder  # nobody loses anything meanwhile
    with pytest.raises(ClaimError, match="reject that claim first"):
        claims.claim_approve(claim=rival, actor=staff)
    assert Profile.objects.get(author=author).user == holder


def test_staff_approve_the_holder_under_review_for_l4(staff):
    author, _ = montreal_author(openalex_id="A1")
    user = person("y", email="y@umontreal.ca")
    claim = approved_by_email_alone(user, author, "y@umontreal.ca")
    reopen()
    claims.claim_approve(claim=claim, actor=staff, note="Checked the department page.")
    claim.refresh_from_db()
    assert claim.status == Claim.Status.APPROVED and claims.claim_level(claim) == 4
    assert Profile.objects.get(author=author).tagline == "Deep learning"
    assert level(author) == 4


def test_staff_reject_the_holder_under_review_and_the_record_is_free(staff, client):
    author, _ = montreal_author()
    user = person("y", email="y@umontreal.ca")
    claim = approved_by_email_alone(user, author, "y@umontreal.ca")
    reopen()
    client.force_login(staff)
    page = client.get(reverse("admin:profiles_claim_change", args=[claim.pk])).content.decode()
    assert 'id="claim-holds-in-review"' in page
    assert "The claimant stops holding the record and their profile is removed." in page
    claims.claim_reject(claim=claim, actor=staff, reason="The department lists someone else.")
    claim.refresh_from_db()
    assert claim.status == Claim.Status.REJECTED
    assert not Profile.objects.filter(author=author).exists()
    assert ownership.owned_profile(user=user, author_id=author.pk) is None
    event = AuditEvent.objects.filter(action="claim_reject").get()
    assert event.data["before"] == "pending" and event.data["profile"]["tagline"] == "Deep learning"
    again = claims.claim_create(
        user=person("n"), author=author, method="evidence", evidence=EVIDENCE
    )
    assert again.status == Claim.Status.PENDING


def test_the_holder_under_review_may_withdraw_and_gives_the_record_up():
    author, _ = montreal_author()
    user = person("y", email="y@umontreal.ca")
    claim = approved_by_email_alone(user, author, "y@umontreal.ca")
    reopen()
    claims.claim_withdraw(claim=claim, user=user)
    assert not Profile.objects.filter(author=author).exists()


# The migration itself, through migrate ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_data_migration_reopens_claims_writes_the_audit_trail_and_rescores():
    from django.core.management import call_command
    from django.db.migrations.executor import MigrationExecutor

    before = ("profiles", "0003_keep_conversations")
    after = ("profiles", "0004_email_claims_back_to_review")
    call_command("migrate", *before, verbosity=0)
    try:
        old = MigrationExecutor(connection).loader.project_state([before]).apps
        user = old.get_model("auth", "User").objects.create(username="yoshua")
        other = old.get_model("auth", "User").objects.create(username="grace")
        Author = old.get_model("publications", "Author")
        author = Author.objects.create(
            display_name="Yoshua Example", normalized_name="yoshua example", openalex_id="A9"
        )
        by_orcid = Author.objects.create(display_name="G", normalized_name="g", orcid=ORCID)
        udem = old.get_model("publications", "Institution").objects.create(
            name="Université de Montréal", homepage_domain="umontreal.ca"
        )
        Work = old.get_model("publications", "Work")
        Authorship = old.get_model("publications", "Authorship")
        for year in (2019, 2024):
            work = Work.objects.create(title=f"Work {year}", publication_year=year)
            Authorship.objects.create(
                work=work, author=author, position=0, source="openalex"
            ).institutions.add(udem)
        Claim = old.get_model("profiles", "Claim")
        moved = Claim.objects.create(
            user=user,
            author=author,
            method="email",
            status="approved",
            verified_email="yoshua@umontreal.ca",
            decided_at=timezone.now(),
        )
        kept = Claim.objects.create(
            user=other, author=by_orcid, method="orcid", status="approved", verified_orcid=ORCID
        )
        old.get_model("profiles", "Profile").objects.create(author=author, user=user)
        old.get_model("profiles", "Profile").objects.create(author=by_orcid, user=other)
        TrustScore.objects.create(
            author_id=author.pk,
            score=40,
            tier="established",
            level=3,
            claim_status="Claimed and verified",
            computed_at=timezone.now(),
        )
    finally:
        call_command("migrate", verbosity=0)  # forward again, to the newest state
    moved = current_apps.get_model("profiles", "Claim").objects.get(pk=moved.pk)
    assert moved.status == "pending"
    assert "the record's institution 2019-2024" in moved.evidence
    assert current_apps.get_model("profiles", "Claim").objects.get(pk=kept.pk).status == "approved"
    assert Profile.objects.filter(author_id=author.pk, user_id=user.pk).exists()
    event = AuditEvent.objects.get(action="claim_reopen")
    assert event.target_id == str(moved.pk) and event.data["migration"] == ".".join(after)
    score = TrustScore.objects.get(author_id=author.pk)
    assert (score.level, score.claim_status) == (1, "Claim pending review")


# The API ---------------------------------------------------------------------------------------


def test_the_api_answers_a_pending_email_claim_with_its_evidence_and_no_level(staff):
    from rest_framework.test import APIClient

    author, _ = montreal_author()
    client = APIClient()
    client.force_authenticate(person("y", email="y@umontreal.ca"))
    response = client.post("/api/v1/claims/", {"author": author.pk, "method": "email"})
    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["level"]) == ("pending", None)
    assert body["evidence"].startswith(
        "confirmed address at umontreal.ca, the record's institution 2019-2024"
    )
    claims.claim_approve(claim=Claim.objects.get(pk=body["id"]), actor=staff)
    approved = client.get(f"/api/v1/claims/{body['id']}/").json()
    assert (approved["status"], approved["level"]) == ("approved", 4)

"""Claiming an author record: the methods that prove a claim, disputes, staff review."""

import pytest
from django.urls import reverse

from catalogue.models import AuditEvent, AuthorInstitution
from profiles.claims import proof
from profiles.claims import services as claims
from profiles.claims.services import ClaimError
from profiles.models import Claim, Profile
from profiles.signals import claim_changed
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
)
from tests.profiles.claim_people import ORCID, OTHER_ORCID, person, with_orcid

pytestmark = pytest.mark.django_db

EVIDENCE = "I am the author: my staff page at the institute lists these papers under my name."


@pytest.fixture
def changed():
    """The author ids ``claim_changed`` was sent for."""
    seen = []

    def receiver(sender, author_id, **kwargs):
        seen.append(author_id)

    claim_changed.connect(receiver, dispatch_uid="test-claims-changed")
    yield seen
    claim_changed.disconnect(dispatch_uid="test-claims-changed")


def actions(claim: Claim) -> list[str]:
    events = AuditEvent.objects.filter(target_type="profiles.claim", target_id=str(claim.pk))
    return list(events.order_by("pk").values_list("action", flat=True))


def check(user, author, method):
    return next(
        c for c in proof.claim_method_checks(user=user, author=author) if c.method == method
    )


# ORCID -------------------------------------------------------------------------------


def test_orcid_sign_in_matching_the_record_approves_at_once(
    author, changed, django_capture_on_commit_callbacks
):
    user = with_orcid(person("grace"))
    with django_capture_on_commit_callbacks(execute=True):
        claim = claims.claim_create(user=user, author=author, method="orcid")
    assert claim.status == Claim.Status.APPROVED
    assert claim.verified_orcid == ORCID
    assert claims.claim_level(claim) == 3
    assert claims.claim_verification(claim) == "verified by ORCID"
    assert Profile.objects.get(author=author).user == user
    assert actions(claim) == ["claim_create", "claim_approve"]
    assert changed == [author.pk]


def test_claim_is_refused_when_orcid_differs(author):
    user = with_orcid(person("other"), OTHER_ORCID)
    with pytest.raises(ClaimError, match=f"{OTHER_ORCID}.*{ORCID}"):
        claims.claim_create(user=user, author=author, method="orcid")
    assert not Claim.objects.exists()


def test_orcid_is_offered_as_a_step_to_a_user_without_orcid_sign_in(author):
    found = check(person("grace"), author, "orcid")
    assert not found.available
    assert found.remedy == "connect_orcid"
    assert ORCID in found.reason


def test_orcid_cannot_work_for_a_record_without_an_orcid():
    found = check(with_orcid(person("grace")), AuthorFactory(orcid=None), "orcid")
    assert not found.available and not found.remedy
    assert "no ORCID iD" in found.reason


def test_orcid_without_sign_in_set_up_says_so(author):
    found = proof.claim_method_checks(user=person("g"), author=author, orcid_sign_in=False)[0]
    assert not found.available and not found.remedy
    assert "ORCID sign-in is not set up" in found.reason


# Institutional email --------------------------------------------------------------------


def test_confirmed_email_at_an_affiliated_institution_is_evidence_for_staff(
    changed, django_capture_on_commit_callbacks
):
    lab = InstitutionFactory(homepage_domain="umich.edu", name="University of Michigan")
    author = AuthorFactory()
    AuthorInstitution.objects.create(author=author, institution=lab)
    user = person("ada", email="ada@eecs.umich.edu")
    with django_capture_on_commit_callbacks(execute=True):
        claim = claims.claim_create(user=user, author=author, method="email")
    assert claim.status == Claim.Status.PENDING
    assert claim.decided_at is None and claim.reviewer is None
    assert claim.verified_email == "ada@eecs.umich.edu"
    assert claim.evidence == (
        "confirmed address at umich.edu, the record's institution years unknown "
        "(University of Michigan)"
    )
    assert claims.claim_verification(claim) == "waiting for staff review"
    assert not Profile.objects.filter(author=author).exists()
    assert actions(claim) == ["claim_create"]
    assert changed == [author.pk]


def test_institutions_of_authorships_and_the_last_known_one_count_too():
    via_paper = InstitutionFactory(homepage_domain="ox.ac.uk")
    latest = InstitutionFactory(homepage_domain="cam.ac.uk")
    author = AuthorFactory(last_known_institution=latest)
    AuthorshipFactory(author=author).institutions.add(via_paper)
    assert set(proof.affiliated_domains(author)) == {"ox.ac.uk", "cam.ac.uk"}
    assert check(person("a", email="a@ox.ac.uk"), author, "email").available
    assert check(person("b", email="b@cam.ac.uk"), author, "email").available


@pytest.mark.parametrize(
    "email",
    ["x@evilumich.edu", "x@umich.edu.evil.com", "x@gmail.com", "x@edu"],
)
def test_lookalike_domains_do_not_prove_an_affiliation(email):
    author = AuthorFactory()
    AuthorInstitution.objects.create(
        author=author, institution=InstitutionFactory(homepage_domain="umich.edu")
    )
    user = person("x", email=email)
    found = check(user, author, "email")
    assert not found.available
    assert "umich.edu" in found.reason
    with pytest.raises(ClaimError):
        claims.claim_create(user=user, author=author, method="email")


def test_an_unconfirmed_institutional_address_must_be_confirmed_first():
    author = AuthorFactory()
    AuthorInstitution.objects.create(
        author=author, institution=InstitutionFactory(homepage_domain="mit.edu")
    )
    found = check(person("x", email="x@mit.edu", confirmed=False), author, "email")
    assert not found.available
    assert found.reason == "Confirm x@mit.edu first: only confirmed addresses count."


def test_email_cannot_work_when_no_institution_has_a_domain(author):
    found = check(person("x"), author, "email")
    assert not found.available
    assert "No institution" in found.reason


# Evidence for staff ---------------------------------------------------------------------


def test_evidence_is_always_offered_and_waits_for_staff(
    author, changed, django_capture_on_commit_callbacks
):
    user = person("claimant")
    assert check(user, author, "evidence").available
    with django_capture_on_commit_callbacks(execute=True):
        claim = claims.claim_create(
            user=user,
            author=author,
            method="evidence",
            evidence=EVIDENCE,
            links=["https://example.edu/staff/grace", " ", "https://example.edu/staff/grace"],
        )
    assert claim.status == Claim.Status.PENDING
    assert claim.evidence_links == ["https://example.edu/staff/grace"]
    assert not Profile.objects.exists()
    assert actions(claim) == ["claim_create"]
    assert changed == [author.pk]  # the trust snapshot shows the pending claim


@pytest.mark.parametrize(
    ("evidence", "links", "message"),
    [
        ("It is me.", [], "at least 20 characters"),
        (EVIDENCE, ["javascript:alert(1)"], "Not a web address"),
        (EVIDENCE, [f"https://example.org/{n}" for n in range(6)], "at most 5 links"),
    ],
)
def test_evidence_that_staff_could_not_check_is_refused(author, evidence, links, message):
    with pytest.raises(ClaimError, match=message):
        claims.claim_create(
            user=person("c"), author=author, method="evidence", evidence=evidence, links=links
        )
    assert not Claim.objects.exists()


# The rules ----------------------------------------------------------------------------------


def test_a_person_holds_one_record(owner):
    other = AuthorFactory()
    with pytest.raises(ClaimError, match="Grace Hopper"):
        claims.claim_create(user=owner, author=other, method="evidence", evidence=EVIDENCE)


def test_a_second_claim_on_a_held_record_becomes_a_dispute_and_nobody_loses(
    author, owner, changed, django_capture_on_commit_callbacks
):
    rival = person("rival")
    with django_capture_on_commit_callbacks(execute=True):
        claim = claims.claim_create(user=rival, author=author, method="evidence", evidence=EVIDENCE)
    assert claim.status == Claim.Status.DISPUTED
    held = Claim.objects.get(user=owner)
    assert held.status == Claim.Status.APPROVED  # the holder keeps the record meanwhile
    assert Profile.objects.get(author=author).user == owner
    assert changed[-1] == author.pk


def test_a_second_claim_on_a_pending_record_disputes_both(author):
    first = claims.claim_create(
        user=person("a"), author=author, method="evidence", evidence=EVIDENCE
    )
    second = claims.claim_create(
        user=with_orcid(person("b")), author=author, method="orcid"
    )  # proves the ORCID, but someone else is already claiming
    first.refresh_from_db()
    assert (first.status, second.status) == ("disputed", "disputed")
    assert "claim_dispute" in actions(first)
    assert not Profile.objects.exists()


def test_staff_approve_evidence_for_level_4(
    author, staff, changed, django_capture_on_commit_callbacks
):
    claim = claims.claim_create(
        user=person("c"), author=author, method="evidence", evidence=EVIDENCE
    )
    with django_capture_on_commit_callbacks(execute=True):
        claims.claim_approve(claim=claim, actor=staff, note="Checked the staff page.")
    claim.refresh_from_db()
    assert claim.status == Claim.Status.APPROVED
    assert claim.reviewer == staff
    assert claims.claim_level(claim) == 4
    assert claims.claim_verification(claim) == "reviewed by staff"
    assert Profile.objects.filter(author=author, user=claim.user).exists()
    assert changed == [author.pk]


def test_staff_cannot_approve_a_rival_while_the_holder_holds(author, owner, staff):
    rival = claims.claim_create(
        user=person("r"), author=author, method="evidence", evidence=EVIDENCE
    )
    with pytest.raises(ClaimError, match="reject that claim first"):
        claims.claim_approve(claim=rival, actor=staff)
    held = Claim.objects.get(user=owner)
    claims.claim_reject(claim=held, actor=staff, reason="The rival showed the staff page.")
    assert not Profile.objects.filter(user=owner).exists()
    claims.claim_approve(claim=rival, actor=staff)
    assert Profile.objects.get(author=author).user == rival.user


def test_rejecting_needs_a_reason_the_claimant_sees(author, staff, client):
    user = person("c")
    claim = claims.claim_create(user=user, author=author, method="evidence", evidence=EVIDENCE)
    with pytest.raises(ClaimError, match="reason"):
        claims.claim_reject(claim=claim, actor=staff, reason="  ")
    claims.claim_reject(claim=claim, actor=staff, reason="The staff page names someone else.")
    client.force_login(user)
    page = client.get(reverse("profiles:claim_detail", args=[claim.pk])).content.decode()
    assert "The staff page names someone else." in page
    panel = client.get(reverse("profiles:claim", args=[author.pk]))
    assert panel.status_code == 200  # a rejected claim does not stop a new one


def test_the_owner_withdraws_and_the_record_is_free_again(author, owner, changed):
    claim = Claim.objects.get(user=owner)
    with pytest.raises(ClaimError, match="Only the person"):
        claims.claim_withdraw(claim=claim, user=person("x"))
    claims.claim_withdraw(claim=claim, user=owner)
    claim.refresh_from_db()
    assert claim.status == Claim.Status.WITHDRAWN and claim.withdrawn_at
    assert not Profile.objects.exists()
    assert actions(claim)[-1] == "claim_withdraw"
    again = claims.claim_create(
        user=person("n"), author=author, method="evidence", evidence=EVIDENCE
    )
    assert again.status == Claim.Status.PENDING


def test_a_merged_record_cannot_be_claimed(author):
    author.merged_into = AuthorFactory()
    author.save()
    with pytest.raises(ClaimError, match="merged"):
        claims.claim_create(user=person("x"), author=author, method="evidence", evidence=EVIDENCE)

"""Claims as people see them: the panel on the researcher page, the claim page, the admin."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import get_template
from django.test import Client
from django.urls import reverse

from profiles.claims import services as claims
from profiles.models import Claim
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
)
from tests.profiles.claim_people import ORCID, OTHER_ORCID, person, with_orcid

pytestmark = pytest.mark.django_db

EVIDENCE = "I am the author: my staff page at the institute lists these papers under my name."


# The panel on the researcher page -----------------------------------------------------------------


def panel(author, user=None, django_assert_max_num_queries=None, budget=2) -> str:
    """The claim panel as the researcher page's selector and template build it."""
    user = user or AnonymousUser()
    with django_assert_max_num_queries(budget):
        state = claims.claim_panel_state(author=author, user=user)
        return get_template("profiles/_claim_panel.html").render(
            {"author": author, "state": state, "user": user}
        )


def test_anonymous_visitors_are_asked_to_log_in_and_come_back(
    author, django_assert_max_num_queries
):
    html = panel(author, None, django_assert_max_num_queries)
    assert "Log in to claim" in html
    # Signing in leads back to the claim form, not to the researcher page.
    assert f'href="/accounts/login/?next=/researchers/{author.pk}/claim/"' in html


def test_signed_in_users_see_claim_this_record(author, stranger, django_assert_max_num_queries):
    html = panel(author, stranger, django_assert_max_num_queries)
    assert "Claim this record" in html
    assert reverse("profiles:claim", args=[author.pk]) in html


def test_a_claimed_record_shows_how_it_was_verified(
    author, owner, stranger, django_assert_max_num_queries
):
    html = panel(author, stranger, django_assert_max_num_queries)
    assert "Claimed</strong> · verified by ORCID · " in html
    assert ">L3</abbr>" in html
    assert "Dispute the claim" in html
    mine = panel(author, owner, django_assert_max_num_queries)
    assert "Edit your profile" in mine
    assert "grace.private@example.net" not in html + mine  # never a private email


def test_staff_reviewed_claims_show_level_4(author, staff, django_assert_max_num_queries):
    claim = claims.claim_create(
        user=person("c"), author=author, method="evidence", evidence=EVIDENCE
    )
    html = panel(author, claim.user, django_assert_max_num_queries)
    assert "Your claim is <strong>pending review</strong>" in html
    claims.claim_approve(claim=claim, actor=staff)
    html = panel(author, None, django_assert_max_num_queries)
    assert "Claimed</strong> · reviewed by staff · " in html and ">L4</abbr>" in html


def test_the_claimant_sees_a_dispute(author, owner, django_assert_max_num_queries):
    rival = person("rival")
    claims.claim_create(user=rival, author=author, method="evidence", evidence=EVIDENCE)
    html = panel(author, rival, django_assert_max_num_queries)
    assert "Your claim is <strong>disputed</strong>" in html


def test_someone_with_a_claim_elsewhere_is_told_so(author, owner, django_assert_max_num_queries):
    # The record held elsewhere is read for this panel alone: one query more.
    html = panel(AuthorFactory(), owner, django_assert_max_num_queries, budget=3)
    assert "You hold" in html and "Grace Hopper" in html
    assert "Claim this record" not in html


# The claim page ------------------------------------------------------------------------------------


def test_the_claim_page_lists_every_method_and_why(author, client):
    client.force_login(with_orcid(person("x"), OTHER_ORCID))
    page = client.get(reverse("profiles:claim", args=[author.pk])).content.decode()
    assert "ORCID sign-in" in page and OTHER_ORCID in page and ORCID in page
    assert "No institution this record is affiliated with has a known web domain." in page
    assert "Send to staff" in page
    assert page.count("Cannot work here") == 2


def test_anonymous_visitors_are_sent_to_sign_in_from_the_claim_page(author, client):
    response = client.get(reverse("profiles:claim", args=[author.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_evidence_sent_from_the_page_waits_for_staff(author, client):
    user = person("x")
    client.force_login(user)
    url = reverse("profiles:claim", args=[author.pk])
    data = {"method": "evidence", "evidence": EVIDENCE, "links": "https://example.edu/me\n"}
    response = client.post(url, data, follow=True)
    claim = Claim.objects.get(user=user)
    assert response.redirect_chain[-1][0] == reverse("profiles:claim_detail", args=[claim.pk])
    assert claim.status == "pending" and claim.evidence_links == ["https://example.edu/me"]
    assert "sent to staff" in response.content.decode()


def test_bad_evidence_is_explained_and_nothing_typed_is_lost(author, client):
    client.force_login(person("x"))
    url = reverse("profiles:claim", args=[author.pk])
    data = {"method": "evidence", "evidence": EVIDENCE, "links": "not a link"}
    response = client.post(url, data)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Not a web address" in page
    assert EVIDENCE.split(":")[0] in page and "not a link" in page
    assert not Claim.objects.exists()


def test_a_refused_method_says_why(author, client, orcid_app):
    client.force_login(person("x"))
    response = client.post(reverse("profiles:claim", args=[author.pk]), {"method": "orcid"})
    assert response.status_code == 400
    assert "sign in with ORCID to prove it is yours" in response.content.decode()


def test_claim_forms_need_the_csrf_token(author):
    user = person("x")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    url = reverse("profiles:claim", args=[author.pk])
    assert client.post(url, {"method": "evidence", "evidence": EVIDENCE}).status_code == 403
    page = client.get(url).content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 2
    assert not Claim.objects.exists()


def test_claims_are_rate_limited(author, client):
    client.force_login(person("x"))
    url = reverse("profiles:claim", args=[author.pk])
    codes = [client.post(url, {"method": "orcid"}).status_code for _ in range(11)]
    assert codes[:10] == [400] * 10
    assert codes[10] == 429


# Who may do what ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "detail", "withdraw"),
    [("stranger", 404, 404), ("follower", 404, 404), ("owner", 200, 302), ("staff", 200, 404)],
)
def test_who_may_see_and_withdraw_a_claim(request, author, owner, who, detail, withdraw):
    claim = Claim.objects.get(user=owner)
    client = Client()
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("profiles:claim_detail", args=[claim.pk])).status_code == detail
    assert client.post(reverse("profiles:claim_withdraw", args=[claim.pk])).status_code == withdraw
    claim.refresh_from_db()
    assert (claim.status == "withdrawn") == (who == "owner")


@pytest.mark.parametrize(
    ("who", "allowed"),
    [("stranger", False), ("follower", False), ("owner", False), ("staff", True)],
)
def test_only_staff_approve_or_reject_in_the_admin(request, author, owner, who, allowed):
    claim = claims.claim_create(
        user=person("c"), author=author, method="evidence", evidence=EVIDENCE
    )
    client = Client()
    client.force_login(request.getfixturevalue(who))
    change = reverse("admin:profiles_claim_change", args=[claim.pk])
    reject = reverse("admin:profiles_claim_reject", args=[claim.pk])
    assert client.get(change).status_code == (200 if allowed else 302)
    response = client.post(reject, {"reason": "Not enough to go on."})
    assert response.status_code == 302
    claim.refresh_from_db()
    assert (claim.status == "rejected") == allowed


def test_staff_review_shows_claim_record_and_claimant_side_by_side(author, owner, staff, client):
    rival = person("rival", email="rival@uni.example.edu")
    AuthorshipFactory(author=author, work__title="Compiling the first compiler")
    claim = claims.claim_create(
        user=rival, author=author, method="evidence", evidence=EVIDENCE, links=["https://x.org/me"]
    )
    client.force_login(staff)
    page = client.get(reverse("admin:profiles_claim_change", args=[claim.pk])).content.decode()
    assert "The claim, the record and the claimant side by side" in page
    assert EVIDENCE.split(":")[0] in page and "https://x.org/me" in page
    assert "Compiling the first compiler" in page and ORCID in page
    assert "rival@uni.example.edu (confirmed)" in page
    assert "Other claims on this record" in page and "grace.private@example.net" in page
    assert "claim_create" in page  # the claimant's latest steps
    assert "grace.private@example.net holds this record" in page
    assert "Approve claim" not in page and "Reject claim" in page
    response = client.post(reverse("admin:profiles_claim_approve", args=[claim.pk]), follow=True)
    assert "reject that claim first" in response.content.decode()  # the holder still holds


def test_staff_approve_from_the_admin(author, staff, client):
    claim = claims.claim_create(
        user=person("c"), author=author, method="evidence", evidence=EVIDENCE
    )
    client.force_login(staff)
    url = reverse("admin:profiles_claim_approve", args=[claim.pk])
    response = client.post(url, {"note": "Welcome."}, follow=True)
    assert "reviewed by staff, L4" in response.content.decode()
    claim.refresh_from_db()
    assert claim.status == "approved" and claim.review_note == "Welcome."


def test_rejecting_without_a_reason_in_the_admin_changes_nothing(author, staff, client):
    claim = claims.claim_create(
        user=person("c"), author=author, method="evidence", evidence=EVIDENCE
    )
    client.force_login(staff)
    response = client.post(reverse("admin:profiles_claim_reject", args=[claim.pk]), {}, follow=True)
    assert "Give the reason" in response.content.decode()
    claim.refresh_from_db()
    assert claim.status == "pending"


def test_no_page_shows_the_claimants_private_email(author, owner, stranger, client):
    rival = person("rival", email="rival.private@example.net")
    claim = claims.claim_create(user=rival, author=author, method="evidence", evidence=EVIDENCE)
    pages = [author.get_absolute_url(), reverse("profiles:claim", args=[author.pk])]
    for viewer in [None, stranger, rival, owner]:
        client.logout()
        if viewer:
            client.force_login(viewer)
        for url in pages:
            html = client.get(url).content.decode()
            assert "grace.private@example.net" not in html, (viewer, url)
            if viewer != rival:
                assert "rival.private@example.net" not in html, (viewer, url)
    client.force_login(owner)
    assert client.get(reverse("profiles:claim_detail", args=[claim.pk])).status_code == 404


@pytest.mark.parametrize(
    "claims_made",
    [
        [],
        [("approved", True)],
        [("pending", True)],
        [("pending", False)],
        [("disputed", True), ("pending", False)],
        [("approved", True), ("disputed", False)],
        [("rejected", False)],
    ],
)
def test_every_reading_of_the_holder_finds_the_same_claim(claims_made):
    """The holder is the latest approved claim, or the latest waiting one whose claimant
    holds the record's profile: found the same by the anonymous panel (with the record
    read as for its page, and without), and by the signed-in one."""
    from catalogue.models import Author
    from pages.researcher_page import author_shown
    from profiles.models import Profile
    from tests.factories import UserFactory

    author = AuthorFactory()
    for status, holds_profile in claims_made:
        claimant = UserFactory()
        Claim.objects.create(user=claimant, author=author, status=status, method="orcid")
        if holds_profile:
            Profile.objects.create(user=claimant, author=author)
    holding = [
        claim
        for claim in Claim.objects.filter(author=author).order_by("-created_at")
        if claim.status == "approved"
        or (
            claim.status in Claim.WAITING_STATUSES
            and Profile.objects.filter(author=author, user=claim.user).exists()
        )
    ]
    expected = holding[0] if holding else None

    plain = Author.objects.select_related("profile").get(pk=author.pk)
    assert claims.claim_panel_state(author=plain, user=AnonymousUser()).holder == expected
    assert claims.claim_panel_state(author=plain, user=UserFactory()).holder == expected
    shown = author_shown(author.pk)  # read with the id of the claim holding it
    assert claims.claim_panel_state(author=shown, user=AnonymousUser()).holder == expected
    assert (expected is not None) == any(holds for _status, holds in claims_made)

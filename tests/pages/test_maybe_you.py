""" "These may be you" on the owner's researcher page, and the owner's answers to it."""

import re

import pytest
from django.urls import reverse

import curation
from catalogue.models import IdentityRequest, LinkConstraint, MergeCandidate, UnlinkedAuthorship
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.people import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def near(author):
    """What lies near Grace Hopper's name: a candidate, loose records and bylines, and
    names of her block that cannot be her."""
    aiken = AuthorFactory(display_name="Howard Aiken")
    ours = WorkFactory(title="The first compiler")
    AuthorshipFactory(work=ours, author=author, position=0)
    AuthorshipFactory(work=ours, author=aiken, position=1)
    w = {"aiken": aiken}
    w["candidate_record"] = AuthorFactory(display_name="G. Hopper", openalex_id="A5000000077")
    AuthorshipFactory(author=w["candidate_record"], work=WorkFactory(title="COBOL notes"))
    w["candidate"] = MergeCandidate.objects.create(
        kind="author",
        author_a=w["candidate_record"],
        author_b=author,
        reason="may be one person: initials agree, 1 shared co-author",
        score=0.64,
    )
    w["loose"] = AuthorFactory(display_name="Grace M. Hopper")
    loose_work = WorkFactory(title="Loose work with Aiken")
    AuthorshipFactory(author=w["loose"], work=loose_work, position=0)
    AuthorshipFactory(author=aiken, work=loose_work, position=1)
    w["gerald"] = AuthorFactory(display_name="Gerald Hopper")  # her block, not her name
    AuthorshipFactory(author=w["gerald"], work=WorkFactory(title="Gerald's work"))
    w["open"] = byline("Hopper, G.", "An open byline", coauthor=aiken)
    w["not_her"] = byline("Hopper, Gerald", "Gerald's open byline")
    w["elsewhere"] = byline("Ada Lovelace", "Another block's byline")
    # A pair that does not name her record is not hers to answer.
    MergeCandidate.objects.create(
        kind="author",
        author_a=AuthorFactory(display_name="Someone Else"),
        author_b=AuthorFactory(display_name="S. Else"),
        reason="may be one person: someone else's evidence",
        score=0.9,
    )
    return w


def byline(name: str, title: str, coauthor=None):
    work = WorkFactory(title=title)
    if coauthor is not None:
        AuthorshipFactory(work=work, author=coauthor, position=0)
    UnlinkedAuthorship.objects.create(work=work, position=1, raw_name=name, source="arxiv")
    return work


def section(html: str) -> str:
    found = re.search(r'<section class="panel maybe-you".*?</section>', html, re.S)
    return found.group(0) if found else ""


def test_the_owner_sees_records_and_bylines_that_may_be_them_with_the_evidence(author, owner, near):
    html = signed_in(owner).get(author.get_absolute_url()).content.decode()
    shown = section(html)
    assert "These may be you" in shown
    # The merge candidate, with the other record's works and the engine's evidence and score.
    assert "G. Hopper" in shown and "1 work" in shown and "COBOL notes" in shown
    assert "may be one person: initials agree, 1 shared co-author · score 0.64" in shown
    # A record made here from bare bylines, with how the names agree and who they share.
    assert "Grace M. Hopper" in shown and "made here from bylines" in shown
    assert "name: same first name, 1 shared co-author (Howard Aiken)" in shown
    # A byline no record holds, whose name agrees.
    assert "Hopper, G.</strong>, author 2 of" in shown and "An open byline" in shown
    assert "name: initials agree, 1 shared co-author (Howard Aiken)" in shown
    # Names of her block that cannot be her, another block's name, and others' pairs: absent.
    for absent in ("Gerald", "Ada Lovelace", "Someone Else", "someone else&#x27;s evidence"):
        assert absent not in shown
    assert shown.count(">This is me<") == 3
    assert shown.count(">Not me<") == 1  # only a merge candidate can be kept apart


def test_nobody_else_sees_the_section(author, owner, near, stranger, other_owner, client):
    for viewer in (signed_in(stranger), signed_in(other_owner), client):
        html = viewer.get(author.get_absolute_url()).content.decode()
        assert 'id="maybe-you"' not in html
    # The other owner sees their own section, without Grace's neighbours.
    theirs = other_owner.profile.author
    shown = section(signed_in(other_owner).get(theirs.get_absolute_url()).content.decode())
    assert "These may be you" in shown and "Hopper" not in shown


def test_this_is_me_sends_a_request_to_staff_and_the_page_says_so(author, owner, near):
    browser = signed_in(owner)
    url = reverse("profiles:maybe_you_record_join", args=[author.pk, near["loose"].pk])
    response = browser.post(url, follow=True)
    assert response.redirect_chain[-1][0].endswith("#maybe-you")
    html = response.content.decode()
    assert "Sent to staff" in html
    asked = IdentityRequest.objects.get()
    assert (asked.kind, asked.other_author, asked.status) == (
        "join_record",
        near["loose"],
        "pending",
    )
    assert "Waiting for staff" in section(html)

    byline_url = reverse("profiles:maybe_you_byline_join", args=[author.pk, near["open"].pk, 1])
    browser.post(byline_url)
    assert IdentityRequest.objects.filter(
        kind="join_byline", work=near["open"], position=1
    ).exists()


def test_not_me_keeps_the_candidate_apart_and_it_leaves_the_list(author, owner, near):
    browser = signed_in(owner)
    url = reverse("profiles:maybe_you_not_me", args=[author.pk, near["candidate"].pk])
    html = browser.post(url, follow=True).content.decode()
    assert MergeCandidate.objects.get(pk=near["candidate"].pk).status == "kept_apart"
    assert LinkConstraint.objects.filter(
        kind="cannot_link", author=near["candidate_record"], other_author=author
    ).exists()
    assert "G. Hopper" not in section(html)


def test_the_owner_undoes_an_applied_request(author, owner, near, staff):
    browser = signed_in(owner)
    browser.post(reverse("profiles:maybe_you_record_join", args=[author.pk, near["loose"].pk]))
    asked = IdentityRequest.objects.get()
    curation.identity_request_approve(identity_request=asked, actor=staff)
    html = browser.get(author.get_absolute_url()).content.decode()
    assert ">Applied<" in section(html) and ">Undo<" in section(html)

    browser.post(reverse("profiles:maybe_you_undo", args=[author.pk, asked.pk]))

    asked.refresh_from_db()
    near["loose"].refresh_from_db()
    assert asked.status == "undone" and near["loose"].merged_into is None


def test_only_the_holder_may_answer(author, owner, near, stranger, other_owner, client):
    candidate, loose, work = near["candidate"], near["loose"], near["open"]
    urls = [
        reverse("profiles:maybe_you_record_join", args=[author.pk, loose.pk]),
        reverse("profiles:maybe_you_byline_join", args=[author.pk, work.pk, 1]),
        reverse("profiles:maybe_you_not_me", args=[author.pk, candidate.pk]),
    ]
    for url in urls:
        assert client.post(url).status_code == 302  # to sign in
        assert "/accounts/login/" in client.post(url)["Location"]
        for who in (stranger, other_owner):
            assert signed_in(who).post(url).status_code == 403
        assert signed_in(owner).get(url).status_code == 405  # answers are posted
    assert not IdentityRequest.objects.exists()
    assert MergeCandidate.objects.get(pk=candidate.pk).status == "open"
    missing = reverse("profiles:maybe_you_record_join", args=[author.pk, 999999])
    assert signed_in(owner).post(missing).status_code == 404

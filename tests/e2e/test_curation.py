"""A curator logs in to the admin and decides merge candidates in Chromium."""

import pytest
from playwright.sync_api import expect

from catalogue.models import Author, MergeCandidate, Work
from tests.factories import AuthorshipFactory, InstitutionFactory, UserFactory, WorkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # UserFactory's password


@pytest.fixture
def curator():
    return UserFactory(username="curator", is_staff=True, is_superuser=True)


def log_in(page, live_server, next_path: str) -> None:
    page.goto(f"{live_server.url}/admin/login/?next={next_path}")
    page.get_by_label("Username").fill("curator")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{next_path}")


def two_namesakes() -> MergeCandidate:
    """Two "Mary Somerville" records with different works and co-authors."""
    lab = InstitutionFactory(name="Institute for Worked Examples")
    first = AuthorshipFactory(
        author__display_name="Mary Somerville",
        author__openalex_id="A5000000042",
        author__last_known_institution=lab,
        work__title="On the connexion of the physical sciences",
        work__publication_year=2019,
    ).author
    AuthorshipFactory(
        author=first,
        work__title="Mechanism of the heavens",
        work__publication_year=2021,
    )
    second = AuthorshipFactory(
        author__display_name="Mary Somerville",
        work__title="Physical geography of coastal dunes",
        work__publication_year=2022,
    ).author
    coauthored = WorkFactory(title="Molecular and microscopic science", publication_year=2023)
    AuthorshipFactory(author=second, work=coauthored)
    AuthorshipFactory(author__display_name="Charles Lyell", work=coauthored, position=1)
    return MergeCandidate.objects.create(
        kind="author",
        author_a=first,
        author_b=second,
        reason="Same name, but no shared co-author or topic yet",
        score=0.5,
    )


def test_curator_keeps_two_namesakes_apart(live_server, page, screenshot, curator):
    candidate = two_namesakes()
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, "/admin/publications/mergecandidate/")
    assert page.get_by_role("heading", name="Select merge candidate to change").is_visible()
    screenshot("curation-candidates-list")

    page.get_by_role("link", name="Mary Somerville ~ Mary Somerville").click()
    page.wait_for_url(f"**/mergecandidate/{candidate.pk}/change/")
    table = page.get_by_role("table", name="The two authors side by side")
    assert table.get_by_text("A5000000042").is_visible()
    assert table.get_by_text("Institute for Worked Examples").first.is_visible()
    assert table.get_by_text("Physical geography of coastal dunes", exact=False).is_visible()
    assert table.get_by_text("with Charles Lyell", exact=False).is_visible()
    screenshot("curation-candidate-authors")

    page.get_by_role("button", name="Keep apart").click()
    expect(page.locator(".messagelist .success")).to_contain_text("Kept apart")
    expect(page.locator("#candidate-status")).to_have_text("Kept apart")
    assert page.get_by_role("button", name="Keep apart").count() == 0
    screenshot("curation-candidate-kept-apart")

    candidate.refresh_from_db()
    assert candidate.status == MergeCandidate.Status.KEPT_APART
    assert candidate.decided_by == curator


def test_curator_merges_two_copies_of_a_work(live_server, page, screenshot, curator):
    title = "A study of quantum widgets"
    published = AuthorshipFactory(
        work__title=title, work__doi="10.1000/widgets", author__display_name="Ada Lovelace"
    ).work
    preprint = AuthorshipFactory(
        work__title=title,
        work__arxiv_id="2006.00001",
        work__publication_year=2020,
        author__display_name="Charles Babbage",
    ).work
    candidate = MergeCandidate.objects.create(
        kind="work", work_a=published, work_b=preprint, reason="Same title, different first authors"
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    log_in(page, live_server, f"/admin/publications/mergecandidate/{candidate.pk}/change/")
    table = page.get_by_role("table", name="The two works side by side")
    assert table.get_by_text("10.1000/widgets").is_visible()
    assert table.get_by_text("2006.00001").is_visible()
    screenshot("curation-candidate-works")

    page.get_by_role("button", name="Merge").click()
    expect(page.locator(".messagelist .success")).to_contain_text("Merged")
    expect(page.locator("#candidate-status")).to_have_text("Merged")
    screenshot("curation-candidate-merged")

    preprint.refresh_from_db()
    assert preprint.merged_into_id == published.pk
    assert Work.objects.get(pk=published.pk).arxiv_id == "2006.00001"
    assert set(Author.objects.filter(works=published).values_list("display_name", flat=True)) == {
        "Ada Lovelace",
        "Charles Babbage",
    }

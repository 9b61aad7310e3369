"""A researcher page, as a visitor without cookie or query string sees it, is kept whole
in the database, read in two queries, and forgotten wherever its summary or works
section is (``pages.researcher_pages``)."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from catalogue.metrics import author_metrics_refresh
from catalogue.models import Author, Authorship
from pages import researcher_pages, researchers
from pages.models import ResearcherPage
from profiles.following import services as following
from profiles.models import Claim, Profile
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    UserFactory,
    WorkFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]


@pytest.fixture
def author(meitner):
    """The researcher these tests show (``conftest.meitner``)."""
    return meitner


def visit(author, client=None) -> str:
    """The page as a new visitor from a search engine meets it: no cookie, no page kept
    in the cache."""
    cache.clear()
    response = (client or Client()).get(author.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def kept_page(author) -> ResearcherPage | None:
    return ResearcherPage.objects.filter(
        author=author, generation=researcher_pages.generation()
    ).first()


def test_a_visit_keeps_the_page_and_the_next_one_reads_it_in_two_queries(author):
    first = visit(author)
    assert kept_page(author).html == first
    assert len(kept_page(author).shown.split()) == 3
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        again = Client().get(author.get_absolute_url()).content.decode()
    assert again == first
    # Its ids with the record's state, then (the works' page versions read) its HTML.
    assert len(queries) == 2
    assert all('"pages_researcherpage"' in q["sql"] for q in queries)


def test_the_page_a_task_draws_is_the_one_a_visit_draws(author):
    drawn_by_visit = visit(author)
    ResearcherPage.objects.all().delete()
    assert researchers.pages_refresh([author.pk]) == 1
    assert kept_page(author).html == drawn_by_visit
    assert visit(author) == drawn_by_visit


def test_a_page_is_kept_only_for_a_visitor_without_cookie_or_query(author):
    Client().get(author.get_absolute_url() + "?sort=title")
    member = Client()
    member.force_login(UserFactory())
    cache.clear()
    assert "Sign out" in member.get(author.get_absolute_url()).content.decode()
    assert not ResearcherPage.objects.exists()


def test_a_page_is_not_kept_until_its_figures_are_computed():
    author = AuthorFactory(display_name="Marie Curie")
    AuthorshipFactory(author=author, work=WorkFactory(title="Radioactive substances"))
    assert "Radioactive substances" in visit(author)
    assert not ResearcherPage.objects.exists()


def test_a_page_of_another_generation_is_drawn_again(author):
    visit(author)
    ResearcherPage.objects.update(generation="older", html="<p>stale</p>")
    shown = visit(author)
    assert "stale" not in shown and "Fission, part 1" in shown
    assert kept_page(author).html == shown


def test_a_kept_page_answers_no_other_address_nor_a_record_gone(author, client):
    visit(author)
    cache.clear()
    wrong = client.get(f"/researchers/{author.pk}-someone-else/")
    assert wrong.status_code == 301 and wrong["Location"] == author.get_absolute_url()
    Author.objects.filter(pk=author.pk).update(is_deleted=True)  # no receiver hears
    cache.clear()
    assert client.get(author.get_absolute_url()).status_code == 404
    Author.objects.filter(pk=author.pk).update(is_deleted=False, merged_into=AuthorFactory())
    cache.clear()
    assert client.get(author.get_absolute_url()).status_code == 302


def _rename_place(author):
    place = author.last_known_institution
    place.name = "Max Planck Institute for Chemistry"
    place.save()  # the header names it (the history keeps the names the figures read)
    return "Max Planck Institute for Chemistry", None


def _follow(author):
    for _ in range(2):
        following.follow_create(user=UserFactory(), author=author)
    return "2 followers", "0 followers"


def _claim(author):
    holder = UserFactory()
    Claim.objects.create(user=holder, author=author, status="approved", method="orcid")
    Profile.objects.create(user=holder, author=author)
    return "Claimed", "Log in to claim"


def _rename(author):
    author.display_name = "Elise Meitner"
    author.save()
    author_metrics_refresh(author_ids=[author.pk])
    return "<title>Elise Meitner", "<title>Lise Meitner"


def _rename_coauthor(author):
    frisch = Author.objects.get(display_name="Otto Frisch")
    frisch.display_name = "Otto Robert Frisch"
    frisch.save()
    return "Otto Robert Frisch", None


def _retitle(author):
    work = author.authorships.get(work__title="Fission, part 2").work
    work.title = "Disintegration of uranium by neutrons"
    work.save()
    return "Disintegration of uranium", "Fission, part 2"


def _new_work(author):
    AuthorshipFactory(author=author, work=WorkFactory(title="Nuclear isomers"))
    author_metrics_refresh(author_ids=[author.pk])
    return "Nuclear isomers", None


def _taken_off(author):
    Authorship.objects.get(work__title="Fission, part 2", author=author).delete()
    return "Fission, part 1", "Fission, part 2"


@pytest.mark.parametrize(
    "change",
    [_rename_place, _follow, _claim, _rename, _rename_coauthor, _retitle, _new_work, _taken_off],
)
def test_a_kept_page_is_forgotten_when_what_it_shows_changes(
    author, change, django_capture_on_commit_callbacks
):
    before = visit(author)
    with django_capture_on_commit_callbacks(execute=True):
        shown, gone = change(author)
    assert gone is None or gone in before
    page = visit(author)
    assert shown in page and (gone is None or gone not in page)
    kept = kept_page(author)
    assert kept is None or kept.html == page  # drawn again, by the task or the visit


def test_a_change_to_the_record_draws_the_page_again_once_it_commits(
    author, django_capture_on_commit_callbacks
):
    visit(author)
    with django_capture_on_commit_callbacks(execute=True):
        _new_work(author)
    assert "Nuclear isomers" in kept_page(author).html  # drawn by the task, not a visit


def test_the_command_draws_the_missing_pages(author):
    frisch = Author.objects.get(display_name="Otto Frisch")
    author_metrics_refresh(author_ids=[frisch.pk])
    visit(author)
    ResearcherPage.objects.all().delete()
    call_command("draw_entries", verbosity=0)
    assert "Fission, part 0" in kept_page(author).html
    assert "Fission, part 2" in kept_page(frisch).html


def test_a_change_committing_while_a_visit_draws_the_page_is_never_kept_stale(
    author, monkeypatch, django_capture_on_commit_callbacks
):
    """The visit drew from the rows as they were; a co-author's new name commits before
    the visit keeps its page (forgetting the pages listing his works, and again once
    committed, after their works' page versions are renewed): the visit finds a version
    it drew under renewed, and forgets the page it kept."""
    real, raced = researcher_pages.keep_if_possible, []

    def racing(*args):
        if not raced:
            raced.append(True)
            with django_capture_on_commit_callbacks(execute=True):
                _rename_coauthor(author)
        return real(*args)

    monkeypatch.setattr(researcher_pages, "keep_if_possible", racing)
    first = visit(author)
    assert raced and "Otto Frisch" in first
    assert kept_page(author) is None
    assert "Otto Robert Frisch" in visit(author)

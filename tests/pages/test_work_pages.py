"""A work page, as a visitor without cookie or query string sees it, is kept whole in the
database, read in two queries, and forgotten wherever its summary or "More like this"
list is, or what its lists of references and citing works show (``pages.work_pages``)."""

from datetime import date, timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalogue.models import Author, Citation, ReferencePreview, Work, WorkSimilarity
from catalogue.signals import authors_changed
from ingestion.references import reference_previews_stored
from pages import work_pages, works
from pages.models import WorkPage
from similarity.storing import _replace_links
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    UserFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]


def cite(citing: Work, cited: Work | None = None, openalex: str = "") -> Citation:
    return Citation.objects.create(
        citing=citing,
        citing_openalex_id=citing.openalex_id or f"W{citing.pk}",
        cited=cited,
        cited_openalex_id=openalex or (cited.openalex_id if cited else "") or f"W{cited.pk}",
    )


@pytest.fixture
def work():
    """A work with a venue, a named author, a reference held here and one not, a citing
    work and a match."""
    work = WorkFactory(title="Quantum walks on graphs", venue=VenueFactory(name="Physical Review"))
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Paul Dirac"), position=0)
    cite(work, WorkFactory(title="Random walks on lattices"))
    cite(work, None, openalex="W2741809807")
    cite(WorkFactory(title="Walks in networks"), work)
    WorkSimilarity.objects.create(
        work=work, similar=WorkFactory(title="Continuous-time walks"), score=0.8, reasons=[]
    )
    return work


def visit(work) -> str:
    """The page as a new visitor from a search engine meets it."""
    cache.clear()
    response = Client().get(work.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def kept_page(work) -> WorkPage | None:
    return WorkPage.objects.filter(work=work, generation=work_pages.generation()).first()


def test_a_visit_keeps_the_page_and_the_next_one_reads_it_in_two_queries(work):
    first = visit(work)
    assert kept_page(work).html == first
    assert f"work:{work.pk}" in kept_page(work).records.split()
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        again = Client().get(work.get_absolute_url()).content.decode()
    assert again == first
    assert len(queries) == 2 and all('"pages_workpage"' in q["sql"] for q in queries)
    for shown in ("Random walks on lattices", "Walks in networks", "Continuous-time walks"):
        assert shown in again


def test_the_page_a_task_draws_is_the_one_a_visit_draws(work):
    drawn_by_visit = visit(work)
    WorkPage.objects.all().delete()
    assert works.pages_refresh([work.pk]) == 1
    assert kept_page(work).html == drawn_by_visit


def test_a_page_is_kept_only_for_a_visitor_without_cookie_or_query(work):
    Client().get(work.get_absolute_url() + "?references=1")
    member = Client()
    member.force_login(UserFactory())
    cache.clear()
    assert "Sign out" in member.get(work.get_absolute_url()).content.decode()
    assert not WorkPage.objects.exists()


def test_a_page_under_a_running_embargo_is_never_kept_one_past_it_is(work):
    Work.objects.filter(pk=work.pk).update(embargo_until=date.today() + timedelta(days=30))
    assert "will become publicly available" in visit(work)
    assert not WorkPage.objects.exists()
    Work.objects.filter(pk=work.pk).update(embargo_until=date.today() - timedelta(days=1))
    assert "was under embargo until" in visit(work)
    assert kept_page(work) is not None


def test_a_kept_page_answers_no_other_address_nor_a_work_merged_away(work, client):
    visit(work)
    cache.clear()
    wrong = client.get(f"/works/{work.pk}-another-title/")
    assert wrong.status_code == 301 and wrong["Location"] == work.get_absolute_url()
    Work.objects.filter(pk=work.pk).update(merged_into=WorkFactory())  # no receiver hears
    cache.clear()
    assert client.get(work.get_absolute_url()).status_code == 302


def _retitle(work):
    work.title = "Quantum walks on graphs and lattices"
    work.save()
    return "Quantum walks on graphs and lattices", None


def _rename_author(work):
    author = Author.objects.get(display_name="Paul Dirac")
    author.display_name = "P. A. M. Dirac"
    author.save()
    return "P. A. M. Dirac", "Paul Dirac"


def _rename_venue(work):
    work.venue.name = "Physical Review Letters"
    work.venue.save()
    return "Physical Review Letters", None


def _retitle_reference(work):
    cited = Work.objects.get(title="Random walks on lattices")
    cited.title = "Random walks on crystal lattices"
    cited.save()
    return "Random walks on crystal lattices", None


def _retitle_citer(work):
    citing = Work.objects.get(title="Walks in networks")
    citing.title = "Walks in complex networks"
    citing.save()
    return "Walks in complex networks", None


def _new_citer(work):
    newer = WorkFactory(title="Walks in time")
    cite(newer, work)
    authors_changed.send(sender=Work, author_ids=[], work_ids=[newer.pk])  # as an import
    return "Walks in time", None


def _new_matches(work):
    newer = WorkFactory(title="Walks on hypergraphs")
    _replace_links([work.pk], [(work.pk, newer.pk, 0.9, [])])
    return "Walks on hypergraphs", "Continuous-time walks"


def _reference_named(work):
    ReferencePreview.objects.create(
        openalex_id="W2741809807",
        title="A walk through quantum graphs",
        year=2001,
        fetched_at=timezone.now(),
    )
    reference_previews_stored.send(sender=ReferencePreview, work_ids=[work.pk])
    return "A walk through quantum graphs", None


@pytest.mark.parametrize(
    "change",
    [
        _retitle,
        _rename_author,
        _rename_venue,
        _retitle_reference,
        _retitle_citer,
        _new_citer,
        _new_matches,
        _reference_named,
    ],
)
def test_a_kept_page_is_forgotten_when_what_it_shows_changes(
    work, change, django_capture_on_commit_callbacks
):
    before = visit(work)
    with django_capture_on_commit_callbacks(execute=True):
        shown, gone = change(work)
    assert shown not in before and (gone is None or gone in before)
    work.refresh_from_db()
    page = visit(work)
    assert shown in page and (gone is None or gone not in page)
    kept = kept_page(work)
    assert kept is None or kept.html == page  # drawn again, by a task or the visit


def test_a_change_to_the_work_draws_its_page_again_once_it_commits(
    work, django_capture_on_commit_callbacks
):
    visit(work)
    with django_capture_on_commit_callbacks(execute=True):
        _retitle(work)
    assert "Quantum walks on graphs and lattices" in kept_page(work).html  # by the task


def test_the_command_draws_the_missing_pages(work):
    WorkPage.objects.all().delete()
    call_command("draw_entries", verbosity=0)
    assert "Walks in networks" in kept_page(work).html


def test_a_change_committing_while_a_visit_draws_the_page_is_never_kept_stale(
    work, monkeypatch, django_capture_on_commit_callbacks
):
    """A citing work's new title commits before the visit keeps its page (forgetting the
    pages listing it, and again once committed, after its page version is renewed): the
    visit finds a version it drew under renewed, and forgets the page it kept."""
    real, raced = work_pages.keep_if_possible, []

    def racing(*args):
        if not raced:
            raced.append(True)
            with django_capture_on_commit_callbacks(execute=True):
                _retitle_citer(work)
        return real(*args)

    monkeypatch.setattr(work_pages, "keep_if_possible", racing)
    first = visit(work)
    assert raced and "Walks in networks" in first
    assert kept_page(work) is None
    assert "Walks in complex networks" in visit(work)

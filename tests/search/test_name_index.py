"""Name search at any size: the name index first, ranked by evidence, fallbacks capped."""

import pytest
from django.db import connection

from catalogue.metrics import author_metrics_refresh
from profiles.models import Claim
from search import works as search_works_module
from search.names import search_authors, search_authors_first
from search.works import search_works
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("statistics_of_this_test")]

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="trigram matching needs PostgreSQL (DATABASE_URL)"
)


def with_works(name: str, works: int, cited: int = 0):
    author = AuthorFactory(display_name=name)
    for _ in range(works):
        AuthorshipFactory(author=author, work=WorkFactory(cited_by_count=cited))
    return author


def names(authors):
    return [(a.display_name, a.pk) for a in authors]


def test_namesakes_are_ranked_by_evidence_claimed_first():
    few = with_works("Grace Hopper", 1, cited=500)
    many = with_works("Grace Hopper", 3)
    claimed = with_works("Grace Hopper", 0)
    cited = with_works("Grace Hopper", 3, cited=10)
    author_metrics_refresh(author_ids=[few.pk, many.pk, claimed.pk, cited.pk])
    Claim.objects.create(author=claimed, user=UserFactory(), status="approved", method="orcid")

    found = [a.pk for a in search_authors("grace hopper")]

    assert found == [claimed.pk, cited.pk, many.pk, few.pk]
    assert [a.pk for a in search_authors_first("hopper", 2)] == [claimed.pk, cited.pk]


def test_the_whole_name_as_written_comes_before_a_longer_one():
    longer = with_works("Grace Brewster Hopper", 5)
    exact = with_works("Grace Hopper", 0)
    author_metrics_refresh(author_ids=[longer.pk, exact.pk])
    assert [a.pk for a in search_authors("Grace Hopper")] == [exact.pk, longer.pk]


def test_merged_and_deleted_researchers_are_not_found():
    kept = AuthorFactory(display_name="Edsger Dijkstra")
    AuthorFactory(display_name="Edsger Dijkstra", merged_into=kept)
    AuthorFactory(display_name="Edsger Dijkstra", is_deleted=True)
    assert [a.pk for a in search_authors("dijkstra")] == [kept.pk]


@postgres_only
def test_a_misspelt_full_name_finds_its_owner_through_the_trigram_index():
    owner = AuthorFactory(display_name="Barbara Liskov")
    AuthorFactory(display_name="Barbara Walters")
    assert search_authors_first("barbara liskow", 3)[0] == owner


def test_a_query_that_names_someone_asks_for_no_similar_titles(client, monkeypatch):
    author = AuthorFactory(display_name="Frances Allen")
    AuthorshipFactory(author=author, work__title="Program optimization")

    def refuse(*args, **kwargs):
        raise AssertionError("no title fallback for a name")

    monkeypatch.setattr(search_works_module, "_similar_titles", refuse)
    page = client.get("/search/", {"q": "Frances Allen"})
    assert page.status_code == 200
    assert page.context["person"] == author


@postgres_only
def test_similar_titles_are_read_through_the_index_and_capped(monkeypatch):
    for number in range(5):
        WorkFactory(title=f"Checkerboard patterns {number}")
    WorkFactory(title="Unrelated thing")
    monkeypatch.setattr(search_works_module, "TITLE_CANDIDATES", 2)
    found = search_works("checkerbord")
    assert found.count() == 2
    assert all(w.title.startswith("Checkerboard") for w in found[:])

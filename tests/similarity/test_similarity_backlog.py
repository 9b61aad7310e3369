"""Similarity runs take every request made before them: batches share runs."""

import pytest

import similarity
from catalogue.models import SimilarityRequest, WorkSimilarity
from catalogue.signals import authors_changed
from similarity import services, tasks
from similarity.backlog import backlog_ask
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def refreshes(monkeypatch):
    """The refreshes a catch-up runs, each as (work ids, author ids), without running them."""
    calls = []

    def refresh(*, work_ids=None, author_ids=None):
        calls.append((set(work_ids), set(author_ids)))
        return similarity.Outcome(works=len(work_ids) + len(author_ids))

    monkeypatch.setattr(services, "similarities_refresh", refresh)
    return calls


def test_requests_made_while_a_run_waits_are_taken_by_one_run(refreshes):
    backlog_ask(author_ids=[1, 2])
    backlog_ask(author_ids=[2, 3])
    backlog_ask(work_ids=[7])
    similarity.similarities_catch_up()
    assert refreshes == [({7}, {1, 2, 3})]
    assert not SimilarityRequest.objects.exists()
    assert similarity.similarities_catch_up().works == 0  # nothing left: no refresh
    assert len(refreshes) == 1


def test_a_request_made_during_a_run_is_left_for_the_next(refreshes, monkeypatch):
    backlog_ask(author_ids=[1])

    def refresh(**kwargs):
        backlog_ask(author_ids=[9])  # another batch commits meanwhile
        return similarity.Outcome(works=1)

    monkeypatch.setattr(services, "similarities_refresh", refresh)
    similarity.similarities_catch_up()
    assert list(SimilarityRequest.objects.values_list("author_ids", flat=True)) == [[9]]


def test_a_run_that_fails_leaves_its_requests(monkeypatch):
    backlog_ask(author_ids=[1])

    def refresh(**kwargs):
        raise RuntimeError("worker lost its database")

    monkeypatch.setattr(services, "similarities_refresh", refresh)
    with pytest.raises(RuntimeError):
        similarity.similarities_catch_up()
    assert SimilarityRequest.objects.count() == 1


def test_two_batches_queued_behind_a_busy_worker_get_their_matches_in_one_run(monkeypatch):
    abstract = "Tidal forces slow the spin of a moon until one face always points at its planet."
    authors = [AuthorFactory(), AuthorFactory()]
    works = [
        WorkFactory(title="Tidal locking of icy moons", abstract=abstract),
        WorkFactory(title="Tidal locking of rocky moons", abstract=abstract),
    ]
    for author, work in zip(authors, works, strict=True):
        AuthorshipFactory(author=author, work=work)
    WorkFactory(title="Protein folding in cold water", abstract="Chaperones and ice.")
    sent = []
    monkeypatch.setattr(tasks.similarities_catch_up, "delay", lambda: sent.append(1))
    for author in authors:  # two import batches, each committed
        authors_changed.send(sender=None, author_ids=[author.pk], work_ids=[])
    assert len(sent) == 2 and SimilarityRequest.objects.count() == 2
    assert not WorkSimilarity.objects.exists()
    tasks.similarities_catch_up.apply()  # the first task to run
    for work in works:
        assert WorkSimilarity.objects.filter(work=work).exists()
    assert not SimilarityRequest.objects.exists()
    assert tasks.similarities_catch_up.apply().result.startswith("0 works")  # the second


def test_a_full_build_covers_the_requests_made_before_it_read_the_corpus():
    WorkFactory.create_batch(3)
    backlog_ask(author_ids=[1])
    corpus = similarity.load_corpus()
    backlog_ask(author_ids=[2])  # after the reading: not in this build
    similarity.similarities_compute_all(corpus=corpus)
    assert list(SimilarityRequest.objects.values_list("author_ids", flat=True)) == [[2]]

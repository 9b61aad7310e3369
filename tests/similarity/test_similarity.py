"""More like this, prior similarity and Novelty over a small corpus whose answers are known."""

from datetime import date

import pytest
from django.core.management import call_command

import similarity
from catalogue import metrics, novelty
from catalogue.models import (
    AuthorMetrics,
    Source,
    Topic,
    Work,
    WorkSimilarity,
    WorkTopic,
)
from catalogue.signals import authors_changed
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db

TEXTS = {
    "graphs": (
        "Graph neural networks predict molecule properties",
        "We train graph neural networks on molecule graphs to predict chemical properties "
        "of molecules such as solubility and toxicity.",
    ),
    "messages": (
        "Message passing graph networks for molecule property prediction",
        "Message passing graph neural networks learn molecule representations that predict "
        "chemical properties such as toxicity.",
    ),
    "glaciers": (
        "Glacier retreat in the Alps since 1850",
        "Satellite images and field surveys measure how alpine glaciers retreated over the "
        "last century as summers warmed.",
    ),
    "snow": (
        "Snow cover and river discharge",
        "Mountain snow cover controls spring river discharge; we model runoff from snowpack "
        "measurements.",
    ),
    "bread": (
        "A survey of sourdough fermentation",
        "Wild yeast and lactic acid bacteria ferment sourdough bread; we review the "
        "microbiology of starters.",
    ),
}


def make_work(key, *, published=None, year=None, authors=(), topics=()):
    title, abstract = TEXTS[key]
    work = WorkFactory(
        title=title,
        abstract=abstract,
        publication_date=published,
        publication_year=year or (published.year if published else None),
    )
    for position, author in enumerate(authors):
        AuthorshipFactory(work=work, author=author, position=position)
    for topic in topics:
        WorkTopic.objects.create(work=work, topic=topic, source=Source.OPENALEX)
    return work


@pytest.fixture
def corpus():
    """Five works: two on molecules, two on mountains (same authors), one on bread."""
    people = {name: AuthorFactory(display_name=name) for name in ("Xu", "Yates", "Vega", "Zola")}
    chemistry = Topic.objects.create(key="openalex:T1", name="Cheminformatics", kind="topic")
    glaciology = Topic.objects.create(key="openalex:T2", name="Glaciology", kind="topic")
    works = {
        "glaciers": make_work(
            "glaciers", published=date(2018, 3, 1), authors=[people["Zola"]], topics=[glaciology]
        ),
        "graphs": make_work(
            "graphs",
            published=date(2019, 1, 10),
            authors=[people["Xu"], people["Vega"]],
            topics=[chemistry],
        ),
        "messages": make_work(
            "messages",
            published=date(2020, 5, 1),
            authors=[people["Yates"], people["Vega"]],
            topics=[chemistry],
        ),
        "snow": make_work(
            "snow", published=date(2021, 7, 1), authors=[people["Zola"]], topics=[glaciology]
        ),
        "bread": make_work("bread", year=2022, authors=[people["Xu"]]),
    }
    return works, people


def matches(work):
    return [
        (link.similar_id, [r["label"] for r in link.reasons])
        for link in WorkSimilarity.objects.filter(work=work).order_by("-score", "similar_id")
    ]


def test_most_similar_work_and_the_reasons(corpus):
    works, _ = corpus
    similarity.similarities_compute_all()

    best, reasons = matches(works["graphs"])[0]
    assert best == works["messages"].pk
    assert "similar abstract" in reasons
    assert "shares topic Cheminformatics" in reasons
    assert "shares author Vega" in reasons

    best, reasons = matches(works["glaciers"])[0]
    assert best == works["snow"].pk
    assert reasons[:2] == ["shares topic Glaciology", "same authors"]

    bread = matches(works["bread"])
    assert [pk for pk, _ in bread] == [works["graphs"].pk]
    assert bread[0][1] == ["shares author Xu"]


def test_unrelated_works_are_not_listed_and_no_work_matches_itself(corpus):
    works, _ = corpus
    similarity.similarities_compute_all()
    listed = {pk for pk, _ in matches(works["graphs"])}
    assert works["glaciers"].pk not in listed
    assert works["snow"].pk not in listed
    assert not WorkSimilarity.objects.filter(work_id=works["graphs"].pk, similar=works["graphs"])
    for link in WorkSimilarity.objects.all():
        assert 0 < link.score <= 1
        assert link.score >= similarity.MIN_SCORE


def test_prior_similarity_looks_only_at_earlier_works(corpus):
    works, _ = corpus
    undated = WorkFactory(
        title=TEXTS["graphs"][0], abstract=TEXTS["graphs"][1], publication_year=None
    )
    similarity.similarities_compute_all()
    prior = dict(Work.objects.values_list("pk", "prior_similarity"))

    # The first glacier paper has nothing before it; the molecule paper only glaciers.
    assert prior[works["glaciers"].pk] == 0.0
    assert prior[works["graphs"].pk] == pytest.approx(0.0, abs=0.01)
    # The message-passing paper follows the graph paper closely.
    assert prior[works["messages"].pk] > novelty.NOVELTY_THRESHOLD
    assert prior[works["snow"].pk] < novelty.NOVELTY_THRESHOLD
    assert prior[works["bread"].pk] < novelty.NOVELTY_THRESHOLD
    # Without a date nothing is "earlier": unknown, not zero.
    assert prior[undated.pk] is None
    # The same text twice: the later copy is as similar as can be to the earlier one.
    copy = WorkFactory(
        title=TEXTS["graphs"][0], abstract=TEXTS["graphs"][1], publication_date=date(2024, 1, 1)
    )
    similarity.similarities_compute_all()
    assert Work.objects.get(pk=copy.pk).prior_similarity == pytest.approx(1.0, abs=1e-3)


def test_a_year_only_work_is_earlier_only_than_works_of_later_years():
    base = WorkFactory(title=TEXTS["snow"][0], abstract=TEXTS["snow"][1], publication_year=2020)
    same_year = WorkFactory(
        title=TEXTS["snow"][0], abstract=TEXTS["snow"][1], publication_date=date(2020, 12, 1)
    )
    later = WorkFactory(
        title=TEXTS["snow"][0], abstract=TEXTS["snow"][1], publication_date=date(2021, 1, 1)
    )
    similarity.similarities_compute_all()
    prior = dict(Work.objects.values_list("pk", "prior_similarity"))
    assert prior[base.pk] == 0.0
    assert prior[same_year.pk] == 0.0  # 2020 may have come after 1 December 2020
    assert prior[later.pk] == pytest.approx(1.0, abs=1e-3)


def test_a_date_that_names_only_its_year_or_month_spans_all_of_it():
    snow = {"title": TEXTS["snow"][0], "abstract": TEXTS["snow"][1], "publication_year": 2020}
    year = WorkFactory(**snow, publication_date=date(2020, 1, 1), publication_date_precision="year")
    month = WorkFactory(
        **snow, publication_date=date(2020, 12, 1), publication_date_precision="month"
    )
    late_december = WorkFactory(**snow, publication_date=date(2020, 12, 31))
    similarity.similarities_compute_all()
    prior = dict(Work.objects.values_list("pk", "prior_similarity"))
    assert prior[year.pk] == 0.0
    assert prior[month.pk] == 0.0  # "2020" may be December too
    assert prior[late_december.pk] == 0.0  # "December 2020" may be its 31st


def test_novelty_is_the_share_of_works_below_the_threshold(corpus, monkeypatch):
    works, people = corpus
    # Five works: each is judged once one work was held before it (the rule's own
    # floor is tested in tests/catalogue/test_novelty.py).
    monkeypatch.setattr(novelty, "MIN_EARLIER_WORKS", 1)
    similarity.similarities_compute_all()
    metrics.author_metrics_refresh(author_ids=[p.pk for p in people.values()])
    figures = dict(AuthorMetrics.objects.values_list("author__display_name", "novelty"))
    assert figures["Xu"] == 100.0  # graphs and bread: nothing like them before
    assert figures["Yates"] == 0.0  # message passing came after the graph paper
    assert figures["Vega"] == 50.0  # one of each
    assert figures["Zola"] == 100.0  # snow; the glacier paper, first of all, is not judged


def test_a_new_work_enters_older_lists_and_raises_later_priors(corpus):
    works, people = corpus
    similarity.similarities_compute_all()
    messages_prior = Work.objects.get(pk=works["messages"].pk).prior_similarity

    # An older near-copy of the message-passing paper arrives.
    older = make_work("messages", published=date(2015, 6, 1), authors=[people["Yates"]])
    outcome = similarity.similarities_update(work_ids=[older.pk])

    assert matches(older)[0][0] == works["messages"].pk
    assert matches(works["messages"])[0][0] == older.pk  # it entered the older list
    assert outcome.lists_updated >= 1
    raised = Work.objects.get(pk=works["messages"].pk).prior_similarity
    assert raised > messages_prior
    assert raised > 0.9
    assert works["messages"].pk in outcome.priors_changed


def test_updating_some_works_gives_the_lists_a_full_run_gives(corpus):
    works, people = corpus
    similarity.similarities_compute_all()
    newcomer = make_work("snow", published=date(2023, 2, 2), authors=[people["Vega"]])
    similarity.similarities_update(work_ids=[newcomer.pk])
    incremental = {w.pk: matches(w) for w in Work.objects.all()}
    priors = dict(Work.objects.values_list("pk", "prior_similarity"))

    similarity.similarities_compute_all()
    assert {w.pk: matches(w) for w in Work.objects.all()} == incremental
    # A new work moves every term's weight a little; an update leaves the stored
    # scores of other pairs as they were (the weekly full build rebases them).
    rebased = dict(Work.objects.values_list("pk", "prior_similarity"))
    assert rebased.keys() == priors.keys()
    for pk, prior in priors.items():
        assert (prior is None) == (rebased[pk] is None)
        assert prior is None or abs(prior - rebased[pk]) < 0.01


def test_small_chunks_give_the_same_answer(corpus, monkeypatch):
    similarity.similarities_compute_all()
    whole = sorted(WorkSimilarity.objects.values_list("work_id", "similar_id", "score"))
    monkeypatch.setattr(similarity.exact, "CHUNK_CELLS", 1)  # one work per chunk
    assert similarity.chunk_size(similarity.load_corpus()) == 1
    WorkSimilarity.objects.all().delete()
    similarity.similarities_compute_all()
    assert sorted(WorkSimilarity.objects.values_list("work_id", "similar_id", "score")) == whole


def test_merged_works_drop_out(corpus):
    works, _ = corpus
    similarity.similarities_compute_all()
    Work.objects.filter(pk=works["messages"].pk).update(merged_into=works["graphs"])
    similarity.similarities_compute_all()
    gone = works["messages"].pk
    assert not WorkSimilarity.objects.filter(work_id=gone).exists()
    assert not WorkSimilarity.objects.filter(similar_id=gone).exists()


def test_an_empty_or_wordless_corpus_is_fine():
    assert similarity.similarities_compute_all().links == 0
    WorkFactory(title="", abstract="")
    WorkFactory(title="The", abstract="of a")  # stop words only
    outcome = similarity.similarities_compute_all()
    assert outcome.works == 2
    assert outcome.links == 0
    assert set(Work.objects.values_list("prior_similarity", flat=True)) == {None}


def test_an_import_signal_computes_matches_and_novelty(corpus, monkeypatch):
    works, people = corpus
    monkeypatch.setattr(novelty, "MIN_EARLIER_WORKS", 1)
    # Metrics rows exist, as the importer's metrics task writes them first.
    metrics.author_metrics_refresh(author_ids=[p.pk for p in people.values()])
    assert not WorkSimilarity.objects.exists()
    authors_changed.send(sender=Work, author_ids=[people["Yates"].pk])
    # Yates's work got its list, and the graph paper gained it in return.
    assert matches(works["messages"])[0][0] == works["graphs"].pk
    assert works["messages"].pk in [pk for pk, _ in matches(works["graphs"])]
    assert AuthorMetrics.objects.get(author=people["Yates"]).novelty == 0.0


def test_management_command_recomputes_the_corpus(corpus, capsys):
    works, _ = corpus
    call_command("compute_similarities")
    out = capsys.readouterr().out
    assert "Corpus: 5 works" in out
    assert "5 works compared" in out
    assert matches(works["graphs"])[0][0] == works["messages"].pk

    WorkSimilarity.objects.all().delete()
    call_command("compute_similarities", str(works["snow"].pk))
    assert matches(works["snow"])[0][0] == works["glaciers"].pk
    assert matches(works["glaciers"])[0][0] == works["snow"].pk


def test_the_demo_data_ends_up_with_matches(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # follow-ups run after each batch
        call_command("demo", verbosity=0)
    rl_scope = Work.objects.get(arxiv_id="2102.04285")
    links = list(WorkSimilarity.objects.filter(work=rl_scope))
    assert len(links) == similarity.NEIGHBOURS
    assert all(link.reasons for link in links)
    assert Work.objects.filter(prior_similarity__isnull=False).count() >= 20
    assert AuthorMetrics.objects.filter(novelty__isnull=False).exists()


def test_a_weekly_full_build_rebases_what_updates_leave():
    from config.celery import app as celery_app

    entry = celery_app.conf.beat_schedule["rebuild-similarities"]
    assert entry["task"] in celery_app.tasks
    assert not entry.get("args") and not entry.get("kwargs")  # no ids: every work


def test_a_full_build_leaves_the_planner_statistics_of_the_lists(corpus):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("planner statistics: PostgreSQL only")
    similarity.similarities_compute_all()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltuples FROM pg_class WHERE oid = %s::regclass",
            [WorkSimilarity._meta.db_table],
        )
        (estimate,) = cursor.fetchone()
    assert estimate == WorkSimilarity.objects.count() > 0

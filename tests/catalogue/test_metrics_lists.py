"""The ranked lists and counts kept on AuthorMetrics by author_metrics_refresh."""

import pytest

from catalogue.metrics import author_followers_refresh, author_metrics_refresh
from catalogue.models import AuthorInstitution, AuthorMetrics, Source, Topic, WorkTopic
from profiles.models import Follow
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    UserFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


def joint_work(*authors, year=2020, **fields):
    work = WorkFactory(publication_year=year, **fields)
    for position, author in enumerate(authors):
        AuthorshipFactory(work=work, author=author, position=position)
    return work


def metrics_of(author) -> AuthorMetrics:
    author_metrics_refresh(author_ids=[author.pk])
    return AuthorMetrics.objects.get(author=author)


def test_close_collaborators_ranked_by_joint_works_then_recency():
    me = AuthorFactory()
    often = AuthorFactory(display_name="Deepak Narayanan")
    recent = AuthorFactory(display_name="Jakub Tarnawski")
    earlier = AuthorFactory(display_name="Hongyu Zhu")
    once = AuthorFactory(display_name="Only Once")
    for year in (2019, 2021, 2023):
        joint_work(me, often, year=year)
    joint_work(me, recent, year=2022)
    joint_work(me, recent, year=2024)
    joint_work(me, earlier, year=2018)
    joint_work(me, earlier, once, year=2020)

    metrics = metrics_of(me)

    assert metrics.close_collaborators_count == 3
    assert metrics.collaborators_top == [
        {
            "id": often.pk,
            "name": "Deepak Narayanan",
            "slug": "deepak-narayanan",
            "joint_works": 3,
            "last_year": 2023,
        },
        {
            "id": recent.pk,
            "name": "Jakub Tarnawski",
            "slug": "jakub-tarnawski",
            "joint_works": 2,
            "last_year": 2024,
        },
        {
            "id": earlier.pk,
            "name": "Hongyu Zhu",
            "slug": "hongyu-zhu",
            "joint_works": 2,
            "last_year": 2020,
        },
    ]


def test_collaborators_list_is_capped_and_skips_merged_records():
    me = AuthorFactory()
    people = [AuthorFactory() for _ in range(12)]
    for person in people:
        joint_work(me, person)
        joint_work(me, person)
    people[0].merged_into = people[1]
    people[0].save()

    metrics = metrics_of(me)

    assert metrics.close_collaborators_count == 11
    assert len(metrics.collaborators_top) == 10
    assert people[0].pk not in [c["id"] for c in metrics.collaborators_top]


def test_topics_ranked_by_works():
    me = AuthorFactory()
    lg = Topic.objects.create(key="arxiv:cs.LG", name="Machine Learning", kind="arxiv")
    dc = Topic.objects.create(key="arxiv:cs.DC", name="Distributed Computing", kind="arxiv")
    for n in range(3):
        work = joint_work(me)
        WorkTopic.objects.create(work=work, topic=dc, source=Source.ARXIV)
        if n == 0:
            WorkTopic.objects.create(work=work, topic=lg, source=Source.ARXIV)

    metrics = metrics_of(me)

    assert metrics.topics_count == 2
    assert metrics.topics_top == [
        {"id": dc.pk, "name": "Distributed Computing", "key": "arxiv:cs.DC", "works": 3},
        {"id": lg.pk, "name": "Machine Learning", "key": "arxiv:cs.LG", "works": 1},
    ]


def test_institutions_current_first_then_most_recent():
    current = InstitutionFactory(name="Microsoft Research", ror="https://ror.org/00d0nc645")
    old = InstitutionFactory(name="Carnegie Mellon University")
    older = InstitutionFactory(name="University of Waterloo")
    me = AuthorFactory(last_known_institution=current)
    AuthorInstitution.objects.create(author=me, institution=older, years=[2008, 2009])
    AuthorInstitution.objects.create(author=me, institution=current, years=[2020])
    AuthorInstitution.objects.create(author=me, institution=old, years=[2012, 2015])

    metrics = metrics_of(me)

    where = {"record": False, "source": "openalex"}  # rows not marked as the author record's
    assert metrics.institutions_list == [
        {
            "id": current.pk,
            "name": "Microsoft Research",
            "ror": "https://ror.org/00d0nc645",
            "first": 2020,
            "last": 2020,
            "current": True,
            **where,
        },
        {
            "id": old.pk,
            "name": "Carnegie Mellon University",
            "ror": "",
            "first": 2012,
            "last": 2015,
            "current": False,
            **where,
        },
        {
            "id": older.pk,
            "name": "University of Waterloo",
            "ror": "",
            "first": 2008,
            "last": 2009,
            "current": False,
            **where,
        },
    ]


def test_the_whole_history_is_kept_with_the_bylines_that_place_the_author():
    me = AuthorFactory()
    places = [InstitutionFactory(name=f"Place {n:02d}") for n in range(15)]
    for n, place in enumerate(places):
        AuthorInstitution.objects.create(
            author=me, institution=place, years=[2000 + n], in_author_record=True
        )
    only_bylines = InstitutionFactory(name="Byline Only")
    for year in (2021, 2023):
        authorship = AuthorshipFactory(author=me, work=WorkFactory(publication_year=year))
        authorship.institutions.set([only_bylines, places[0]])

    history = metrics_of(me).institutions_list

    assert len(history) == 16  # no cut
    assert history[0] | {"id": 0} == {
        "id": 0,
        "name": "Byline Only",
        "ror": "",
        "record": False,
        "source": None,
        "current": False,
        "byline_works": 2,
        "byline_first": 2021,
        "byline_last": 2023,
    }
    first = next(entry for entry in history if entry["name"] == "Place 00")
    assert (first["record"], first["first"], first["byline_works"]) == (True, 2000, 2)


def test_followers_counted_on_refresh_and_on_their_own():
    me = AuthorFactory()
    joint_work(me)
    for _ in range(2):
        Follow.objects.create(user=UserFactory(), author=me)
    assert metrics_of(me).followers_count == 2

    Follow.objects.create(user=UserFactory(), author=me)
    assert author_followers_refresh(author_ids=[me.pk]) == 1
    assert AuthorMetrics.objects.get(author=me).followers_count == 3


def test_ai_score_is_unknown_without_topics_or_categories():
    me = AuthorFactory()
    joint_work(me, year=2020)
    assert metrics_of(me).ai_score is None

    joint_work(me, year=2024, arxiv_primary_category="cs.LG")
    assert metrics_of(me).ai_score == 100.0


def test_lists_are_empty_for_an_author_without_works():
    me = AuthorFactory()
    metrics = metrics_of(me)
    assert (metrics.works_count, metrics.collaborators_top, metrics.topics_top) == (0, [], [])
    assert metrics.institutions_list == []


def test_refresh_query_count_does_not_grow_with_authors(django_assert_max_num_queries):
    authors = [AuthorFactory() for _ in range(30)]
    for a, b in zip(authors, authors[1:], strict=False):
        joint_work(a, b)
        joint_work(a, b)
    # Novelty's comparison set is counted afresh in each refresh (two queries), and the
    # researchers' kept page summaries, works sections and whole pages are forgotten
    # (one each).
    with django_assert_max_num_queries(16):
        author_metrics_refresh(author_ids=[a.pk for a in authors])
    assert AuthorMetrics.objects.filter(close_collaborators_count__gte=1).count() == 30


def _topic_in(field: Topic, key: str) -> Topic:
    subfield = Topic.objects.create(key=f"{key}-sub", name=f"{field.name} part", kind="subfield")
    subfield.parent = field
    subfield.save()
    return Topic.objects.create(key=key, name=key, kind="topic", parent=subfield)


@pytest.mark.parametrize("written_first", ["computing", "decisions"])
def test_primary_field_ties_go_to_the_field_more_topics_fall_in(written_first):
    # One work, two topics in Decision Sciences and one in Computer Science: each
    # field counts the work once, so the topics break the tie, whatever the order.
    me = AuthorFactory()
    computing = Topic.objects.create(key="F17", name="Computer Science", kind="field")
    decisions = Topic.objects.create(key="F18", name="Decision Sciences", kind="field")
    work = joint_work(me)
    topics = {
        "computing": [_topic_in(computing, "T1")],
        "decisions": [_topic_in(decisions, "T2"), _topic_in(decisions, "T3")],
    }
    other = "decisions" if written_first == "computing" else "computing"
    for topic in topics[written_first] + topics[other]:
        WorkTopic.objects.create(work=work, topic=topic, source=Source.OPENALEX)

    assert metrics_of(me).primary_category == "Decision Sciences"


def test_primary_category_ties_go_to_the_name_that_sorts_first():
    me = AuthorFactory()
    joint_work(me, arxiv_primary_category="math.CO")
    joint_work(me, arxiv_primary_category="cs.LG")

    assert metrics_of(me).primary_category == "cs.LG"

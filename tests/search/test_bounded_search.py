"""Search reads in bounded time: through the index, ranking in full only a small result,
and the works of a page read as their list entries need them (PostgreSQL)."""

import re

import pytest
from django.db import connection
from django.template.loader import get_template
from django.test.utils import CaptureQueriesContext

from catalogue.models import Topic, UnlinkedAuthorship, Work, WorkTopic
from catalogue.selectors import works_with_authors
from search import matches as search
from search.cards import works_listed
from search.works import WorkFilters, search_works
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("statistics_of_this_test"),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="full-text search and its plans: PostgreSQL"
    ),
]


def analyse():
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE publications_worksearch")


def test_a_rare_word_finds_its_work_first_in_one_statement_beside_a_common_word():
    for n in range(60):
        WorkFactory(title=f"Graphene sheets {n}", abstract="Graphene folds.", cited_by_count=n)
    rare = WorkFactory(title="Graphene under a quasicrystal lattice", cited_by_count=0)
    WorkFactory(title="Unrelated", abstract="A quasicrystal in passing.", cited_by_count=500)
    analyse()
    with CaptureQueriesContext(connection) as queries:
        matches = search_works("quasicrystal")
        assert matches.count() == 2
    # The planner's estimate (no row read), then counted, faceted and ranked in one statement.
    assert len(queries) == 2 and queries[0]["sql"].startswith("EXPLAIN")
    assert [w.pk for w in matches[0:2]][0] == rare.pk  # the title hit, though cited least
    assert not matches.approximate and matches.topic_sample is None


def test_facet_counts_are_exact_up_to_the_threshold_and_sampled_past_it(monkeypatch):
    monkeypatch.setattr(search, "TOPIC_SAMPLE", 8)
    topic = Topic.objects.create(key="arxiv:cs.LG", name="Machine learning", kind="arxiv")
    for n in range(12):
        work = WorkFactory(
            title=f"Learning example {n}", type="preprint" if n % 3 else "article", cited_by_count=n
        )
        WorkTopic.objects.create(work=work, topic=topic)
    analyse()

    monkeypatch.setattr(search, "LARGE_RESULT", 12)  # the threshold itself: exact
    matches = search_works("learning")
    assert type(matches) is search.RankedMatches and not matches.approximate
    assert matches.count() == 12
    facets = {f["value"]: f["count"] for f in matches.type_facets()}
    assert facets == {"preprint": 8, "article": 4}
    assert matches.topic_facets()[0]["count"] == 8 and matches.topic_sample == 8

    monkeypatch.setattr(search, "LARGE_RESULT", 11)  # one past it: the most cited sample
    matches = search_works("learning")
    assert type(matches) is search.SampledMatches and matches.approximate
    assert matches.topic_sample == 8
    assert sum(f["count"] for f in matches.type_facets()) == 8
    assert {w.cited_by_count for w in matches[0:8]} == set(range(4, 12))


def test_a_result_the_planner_expects_large_is_sampled_at_once(monkeypatch):
    monkeypatch.setattr(search, "LARGE_RESULT", 5)
    monkeypatch.setattr(search, "TOPIC_SAMPLE", 4)
    for n in range(30):
        WorkFactory(title=f"Graphene study {n}", cited_by_count=n)
    WorkFactory(title="Silicon study", cited_by_count=99)
    analyse()
    with CaptureQueriesContext(connection) as queries:
        matches = search_works("graphene")
        assert matches.approximate and matches.topic_sample == 4
    assert type(matches) is search.BoundedSample
    assert len(queries) == 2  # the estimate, then the most cited matches in one statement
    assert [w.cited_by_count for w in matches[0:4]] == [29, 28, 27, 26]


def test_a_result_the_planner_overrates_is_counted_exactly(monkeypatch):
    monkeypatch.setattr(search, "estimated_rows", lambda rows: 10**6)
    for n in range(3):
        WorkFactory(title=f"Quasicrystal lattice {n}", cited_by_count=n)
    for n in range(40):
        WorkFactory(title=f"Unrelated study {n}", cited_by_count=100 + n)
    analyse()
    matches = search_works("quasicrystal")
    # The stretch of the citation index read holds too few matches: counted in full.
    assert type(matches) is search.RankedMatches and not matches.approximate
    assert matches.count() == 3
    assert [w.cited_by_count for w in matches[0:3]] == [2, 1, 0]


def test_a_result_past_the_threshold_with_filters_still_counts_only_what_they_keep(monkeypatch):
    monkeypatch.setattr(search, "LARGE_RESULT", 5)
    for n in range(10):
        WorkFactory(title=f"Spin glass {n}", publication_year=2000 + n)
    analyse()
    matches = search_works("spin", WorkFilters(year_from=2007))
    assert matches.count() == 3 and not matches.approximate


def test_the_works_of_a_page_are_read_as_their_list_entries_need_them():
    long = WorkFactory(title="A collaboration")
    for position in range(64):
        AuthorshipFactory(work=long, position=position)
    UnlinkedAuthorship.objects.create(work=long, position=70, raw_name="Late Name", source="arxiv")
    mixed = WorkFactory(title="Mixed byline")
    AuthorshipFactory(work=mixed, position=0, author__display_name="Grace Linked")
    gone = AuthorshipFactory(work=mixed, position=1, author=AuthorFactory(is_deleted=True))
    UnlinkedAuthorship.objects.bulk_create(
        [
            UnlinkedAuthorship(work=mixed, position=1, raw_name="Taken One", source="arxiv"),
            UnlinkedAuthorship(work=mixed, position=2, raw_name="First Two", source="arxiv"),
            UnlinkedAuthorship(work=mixed, position=2, raw_name="Second Two", source="openalex"),
            UnlinkedAuthorship(work=mixed, position=3, raw_name="Only Three", source="arxiv"),
        ]
    )
    alone = WorkFactory(title="No byline")
    ids = [mixed.pk, alone.pk, long.pk, 10**9]
    expected = {w.pk: w for w in works_with_authors(Work.objects.filter(pk__in=ids))}

    with CaptureQueriesContext(connection) as queries:
        found = works_listed(ids)
    assert len(queries) == 3
    assert [w.pk for w in found] == [mixed.pk, alone.pk, long.pk]
    entry = get_template("publications/_work_item.html")
    for work in found:
        want = expected[work.pk]
        assert [(type(e), e.pk) for e in work.byline()] == [(type(e), e.pk) for e in want.byline()]
        assert work.byline_length == want.byline_length
        context = {"page_author": None, "pinned": False}
        assert entry.render({"work": work, **context}) == entry.render({"work": want, **context})
    names = [e.raw_name for e in found[0].byline()]
    assert names[:1] == ["Grace Linked"] and names[2:] == ["First Two", "Only Three"]
    assert found[0].byline()[1].author == gone.author
    assert found[2].byline_length == 65
    assert [e.position for e in found[2].byline()] == [*range(60), 70]
    assert found[0].byline()[0].author.alternative_names == []  # read as the ORM reads it


@pytest.mark.usefixtures("page_cache")
def test_a_rebuilt_page_reads_only_the_works_whose_entries_changed(client):
    AuthorshipFactory(work__title="Tensor networks, kept")
    changed = AuthorshipFactory(work__title="Tensor networks, changed").work
    assert client.get("/search/", {"q": "networks"}).status_code == 200
    changed.title = "Tensor networks, renamed"
    changed.save()  # its entry and the page are renewed; the other entry is unchanged
    with CaptureQueriesContext(connection) as rebuilt:
        html = client.get("/search/", {"q": "networks"}).content.decode()
    assert "Tensor networks, renamed" in html and "Tensor networks, kept" in html
    read = [q["sql"] for q in rebuilt if '"publications_work"."abstract"' in q["sql"]]
    assert len(read) == 1
    assert re.findall(r'"publications_work"\."id" IN \(([\d, ]+)\)', read[0]) == [str(changed.pk)]

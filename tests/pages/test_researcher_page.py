"""The researcher page: header, counts, chart, work list, feed and external-id addresses."""

from datetime import date
from xml.etree import ElementTree

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.identifiers import normalize_title
from catalogue.metrics import author_metrics_refresh
from catalogue.models import Author, AuthorMetrics, Authorship, Source, Topic, Work, WorkTopic
from catalogue.signals import metrics_refreshed
from pages.charts import citations_chart, nice_step
from profiles.models import Profile
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    UserFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def add_work(author, position=0, **fields):
    work = WorkFactory(**fields)
    AuthorshipFactory(work=work, author=author, position=position)
    return work


def bulk_works(author, count, *, coauthor=None):
    """``count`` works of ``author`` (and ``coauthor``) written with bulk inserts."""
    venue = VenueFactory()
    works = Work.objects.bulk_create(
        Work(
            title=f"Bulk study {n}",
            normalized_title=normalize_title(f"Bulk study {n}"),
            abstract="A short abstract. " * (n % 5 + 1),
            publication_year=1990 + n % 35,
            publication_date=date(1990 + n % 35, n % 12 + 1, 1),
            venue=venue,
            cited_by_count=n % 50,
            arxiv_primary_category="cs.LG" if n % 2 else "",
            code_url="https://example.org/code" if n % 3 == 0 else "",
        )
        for n in range(count)
    )
    links = [Authorship(work=w, author=author, position=0, source=Source.OPENALEX) for w in works]
    if coauthor is not None:
        links += [
            Authorship(work=w, author=coauthor, position=1, source=Source.OPENALEX) for w in works
        ]
    Authorship.objects.bulk_create(links)
    author_metrics_refresh(author_ids=[author.pk])
    return works


def page_queries(client, author, query=""):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(author.get_absolute_url() + query)
    assert response.status_code == 200
    return len(captured.captured_queries), response


# ---- speed ---------------------------------------------------------------------------


def test_page_takes_the_same_queries_for_20_and_2000_works(client, django_assert_max_num_queries):
    small, large = AuthorFactory(), AuthorFactory()
    bulk_works(small, 20, coauthor=AuthorFactory())
    bulk_works(large, 2000, coauthor=AuthorFactory())

    # No list entry, summary or works section kept yet: the page reads the record in
    # full, the works it lists with their bylines, draws their entries, the record's
    # summary and the works section and keeps them, in a fixed number of queries.
    with django_assert_max_num_queries(22):
        small_first, _ = page_queries(client, small)
    with django_assert_max_num_queries(22):
        large_first, _ = page_queries(client, large)
    assert small_first == large_first

    # All kept: the author with what the visitor's panels show (its follower count and
    # holding claim), the ids the kept works section lists and then its HTML, and the
    # kept summary: 4. No work, entry, byline, claim, follow, trust history or figure.
    with django_assert_max_num_queries(4):
        small_count, _ = page_queries(client, small)
    with django_assert_max_num_queries(4):
        large_count, response = page_queries(client, large)

    assert small_count == large_count
    assert "2,000 published items" in response.content.decode()


def test_a_signed_in_visitor_finds_the_record_read_once_where_the_page_is_not_kept(client):
    """The record is read once, after its page version, for the visitor's panels and the
    shared page alike, when the shared page has to be drawn (caches emptied)."""
    from django.core.cache import cache

    author = AuthorFactory()
    bulk_works(author, 30, coauthor=AuthorFactory())
    page_queries(client, author)  # the summary and works section kept
    cache.clear()
    client.force_login(UserFactory())
    table = f'FROM "{Author._meta.db_table}"'
    with CaptureQueriesContext(connection) as captured:
        response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    reads = [q["sql"] for q in captured.captured_queries if table in q["sql"]]
    assert len(reads) == 1, reads
    assert "30 published items" in response.content.decode()


def test_filtered_and_sorted_page_stays_within_the_query_budget(client):
    author = AuthorFactory()
    bulk_works(author, 300, coauthor=AuthorFactory())
    topic = Topic.objects.create(key="arxiv:cs.LG", name="Machine Learning", kind="arxiv")
    WorkTopic.objects.create(work=Work.objects.first(), topic=topic, source=Source.ARXIV)
    author_metrics_refresh(author_ids=[author.pk])

    plain, _ = page_queries(client, author)
    query = "?sort=cited&year_from=2000&year_to=2010&type=article&topic=arxiv:cs.LG&has_code=true"
    filtered, _ = page_queries(client, author, query)

    assert filtered <= plain + 1  # the topic key is looked up once
    assert filtered <= 10


# ---- header and counts ---------------------------------------------------------------


def test_header_shows_name_badges_and_identifiers(client):
    institution = InstitutionFactory(name="University of Toronto")
    author = AuthorFactory(
        display_name="Gennady Pekhimenko",
        orcid="0000-0002-1825-0097",
        openalex_id="A5023888391",
        last_known_institution=institution,
    )
    add_work(author)
    author_metrics_refresh(author_ids=[author.pk])

    html = client.get(author.get_absolute_url()).content.decode()

    assert "<h1" in html and "Gennady Pekhimenko</h1>" in html
    assert ">Researcher<" in html
    assert ">University of Toronto<" in html
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in html
    assert 'href="https://openalex.org/A5023888391"' in html
    assert "https://arxiv.org/search/?searchtype=author&amp;query=Gennady+Pekhimenko" in html
    assert "Open to collaborate" not in html


def test_local_openalex_ids_are_shown_but_not_linked(client):
    author = AuthorFactory(openalex_id="A9000000001")
    html = client.get(author.get_absolute_url()).content.decode()
    assert "A9000000001" in html
    assert "https://openalex.org/A9000000001" not in html
    assert "not at OpenAlex" in html


def test_missing_affiliation_and_claimed_profile(client):
    author = AuthorFactory()
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Affiliation not imported" in html

    Profile.objects.create(
        author=author,
        user=UserFactory(),
        tagline="Systems for machine learning.",
        open_to_collaborate=True,
    )
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Systems for machine learning." in html
    assert "Open to collaborate" in html


def test_the_saved_homepage_is_linked_from_the_researcher_page(client):
    author = AuthorFactory()
    profile = Profile.objects.create(
        author=author, user=UserFactory(), homepage="https://lab.example.edu/~ada/"
    )
    html = client.get(author.get_absolute_url()).content.decode()
    link = '<a href="https://lab.example.edu/~ada/" rel="nofollow noopener">'
    assert f"Homepage {link}https://lab.example.edu/~ada/</a>" in html

    profile.homepage = "javascript:alert(1)"
    profile.save()  # not via the form
    html = client.get(author.get_absolute_url()).content.decode()
    assert "javascript:" not in html and 'data-testid="homepage"' not in html


def test_counts_come_from_the_metrics_row_and_unknown_is_not_zero(client):
    author = AuthorFactory()
    for _ in range(3):
        add_work(author, cited_by_count=None)
    author_metrics_refresh(author_ids=[author.pk])

    html = client.get(author.get_absolute_url()).content.decode()
    assert "<dt>works</dt><dd>3</dd>" in html
    assert '<dt>citations</dt><dd class="unknown"' in html
    assert '<dt>h-index</dt><dd class="unknown">unknown</dd>' in html

    # The page reads the stored row, not the works: a stale row shows its own numbers.
    AuthorMetrics.objects.filter(author=author).update(works_count=41, citations=2896, h_index=7)
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=[author.pk])  # as its writers do
    html = client.get(author.get_absolute_url()).content.decode()
    assert "<dt>works</dt><dd>41</dd>" in html
    assert "<dt>citations</dt><dd>2,896</dd>" in html
    assert "<dt>h-index</dt><dd>7</dd>" in html


def test_scores_show_their_formulas(client):
    author, earlier = AuthorFactory(), AuthorFactory()
    for year in range(2000, 2010):  # ten earlier works to compare with
        add_work(earlier, title=f"Earlier study {year}", publication_year=year)
    add_work(author, arxiv_primary_category="cs.LG", publication_year=2023, prior_similarity=0.1)
    add_work(author, arxiv_primary_category="cs.LG", publication_year=2024, prior_similarity=0.6)
    author_metrics_refresh(author_ids=[author.pk])

    html = client.get(author.get_absolute_url()).content.decode()
    assert "AI score" in html and "halves every 5 years" in html
    assert '<span class="score-value">100</span>' in html
    assert "Novelty" in html and '<span class="score-value">50%</span>' in html
    assert "1 of 2 works judged" in html and "out of the 12 works" in html
    assert "below 0.35" in html
    assert "Primary category" in html and "cs.LG" in html


def test_novelty_without_enough_earlier_works_shows_no_percentage_and_says_why(client):
    author = AuthorFactory()
    add_work(author, title="First", publication_year=2020, prior_similarity=0.0)
    add_work(author, title="Second", publication_year=2021, prior_similarity=0.1)
    author_metrics_refresh(author_ids=[author.pk])

    html = client.get(author.get_absolute_url()).content.decode()
    start = html.index('data-testid="novelty"')
    novelty = html[start : html.index("</div>", start)]
    assert "%" not in novelty and "no figure" in novelty
    assert "No figure: none of these works had 10 earlier works held here" in novelty
    assert "the site holds 2 works with a date and a title or abstract (2020–2021)" in novelty


def test_a_version_date_of_another_year_keeps_its_precision(client):
    author = AuthorFactory()
    add_work(
        author,
        title="Old row",
        publication_date=date(2019, 10, 1),
        publication_date_precision="month",
        publication_year=2020,
    )
    html = client.get(author.get_absolute_url()).content.decode()
    assert '<span class="work-year" title="Year of publication">2020</span>' in html
    assert (
        '<time class="work-date" datetime="2019-10" title="Date of this version">(Oct 2019)' in html
    )
    assert "1 Oct 2019" not in html and "2019-10-01" not in html


def test_page_without_metrics_says_so(client):
    author = AuthorFactory()
    html = client.get(author.get_absolute_url()).content.decode()
    assert "Metrics have not been computed" in html


# ---- addresses -----------------------------------------------------------------------


def test_wrong_slug_redirects_and_keeps_the_query(client):
    author = AuthorFactory(display_name="Amar Phanishayee")
    response = client.get(f"/researchers/{author.pk}-old-name/?sort=title&page=2")
    assert response.status_code == 301
    assert response["Location"] == f"/researchers/{author.pk}-amar-phanishayee/?sort=title&page=2"


def test_merged_author_redirects_for_now_and_deleted_author_is_gone(client):
    kept = AuthorFactory()
    merged = AuthorFactory(merged_into=kept)
    deleted = AuthorFactory(is_deleted=True)
    response = client.get(merged.get_absolute_url() + "?sort=title")
    assert response.status_code == 302  # staff can undo the merge: no browser may keep it
    assert response["Location"] == kept.get_absolute_url() + "?sort=title"
    assert client.get(deleted.get_absolute_url()).status_code == 404


def test_orcid_address_redirects_to_the_page(client):
    author = AuthorFactory(orcid="0000-0002-1825-0097")
    response = client.get("/researchers/orcid/0000-0002-1825-0097/")
    assert response.status_code == 302
    assert response["Location"] == author.get_absolute_url()


def test_unknown_orcid_answers_404_with_help(client):
    response = client.get("/researchers/orcid/0000-0002-1825-0097/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "No researcher with ORCID iD 0000-0002-1825-0097" in html
    assert 'href="https://orcid.org/0000-0002-1825-0097"' in html


def test_malformed_orcid_says_what_it_should_look_like(client):
    response = client.get("/researchers/orcid/0000-0002-1825-0098/")  # bad checksum
    assert response.status_code == 404
    assert "is not a well-formed ORCID iD" in response.content.decode()


def test_openalex_address_redirects_and_rejects_work_ids(client):
    author = AuthorFactory(openalex_id="A5023888391")
    response = client.get("/researchers/openalex/a5023888391/")
    assert response["Location"] == author.get_absolute_url()

    response = client.get("/researchers/openalex/W2741809807/")
    assert response.status_code == 404
    assert "not a well-formed OpenAlex id" in response.content.decode()

    response = client.get("/researchers/openalex/A9000000009/")  # a local id: not sent there
    assert response.status_code == 404
    assert "openalex.org/A9000000009" not in response.content.decode()


# ---- work list -----------------------------------------------------------------------


def titles(response):
    html = response.content.decode()
    return [t for t in ("Alpha", "Beta", "Gamma", "Delta") if f">{t} paper<" in html]


def order(response, names):
    html = response.content.decode()
    return sorted(names, key=lambda name: html.index(f">{name} paper<"))


@pytest.fixture
def four_works():
    author = AuthorFactory()
    topic = Topic.objects.create(key="arxiv:cs.DC", name="Distributed Computing", kind="arxiv")
    alpha = add_work(author, title="Alpha paper", publication_year=2018, cited_by_count=5)
    add_work(
        author,
        title="Beta paper",
        publication_year=2021,
        cited_by_count=90,
        code_url="https://github.com/example/beta",
    )
    gamma = add_work(
        author,
        title="Gamma paper",
        publication_year=2023,
        cited_by_count=None,
        type=Work.Type.PREPRINT,
    )
    add_work(author, title="Delta paper", publication_year=2020, cited_by_count=12)
    WorkTopic.objects.create(work=alpha, topic=topic, source=Source.ARXIV)
    WorkTopic.objects.create(work=gamma, topic=topic, source=Source.ARXIV)
    author_metrics_refresh(author_ids=[author.pk])
    return author


def test_works_sort_newest_most_cited_and_by_title(client, four_works):
    url = four_works.get_absolute_url()
    assert '<span class="work-year" title="Year">2023</span>' in client.get(url).content.decode()
    names = ["Alpha", "Beta", "Gamma", "Delta"]
    assert order(client.get(url), names) == ["Gamma", "Beta", "Delta", "Alpha"]
    assert order(client.get(url + "?sort=cited"), names) == ["Beta", "Delta", "Alpha", "Gamma"]
    assert order(client.get(url + "?sort=title"), names) == ["Alpha", "Beta", "Delta", "Gamma"]


def test_works_filter_by_years_type_topic_and_code(client, four_works):
    url = four_works.get_absolute_url()
    assert titles(client.get(url + "?year_from=2020&year_to=2021")) == ["Beta", "Delta"]
    assert titles(client.get(url + "?type=preprint")) == ["Gamma"]
    assert titles(client.get(url + "?topic=arxiv:cs.DC")) == ["Alpha", "Gamma"]
    assert titles(client.get(url + "?has_code=true")) == ["Beta"]
    response = client.get(url + "?topic=arxiv:cs.DC&year_from=2020")
    assert titles(response) == ["Gamma"]
    assert "1 published item match these filters" in response.content.decode()


def test_invalid_filters_are_reported_and_the_rest_still_apply(client, four_works):
    url = four_works.get_absolute_url()
    response = client.get(url + "?year_from=soon&type=poem&topic=nope&sort=random&year_to=2020")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Some filters were not applied" in html
    assert "Enter a year such as 2019." in html
    assert "Unknown work type" in html
    assert "No topic has this key" in html
    assert "Sort by newest, cited or title." in html
    assert titles(response) == ["Alpha", "Delta"]  # year_to=2020 still applies


def test_reversed_year_range_is_explained(client, four_works):
    response = client.get(four_works.get_absolute_url() + "?year_from=2022&year_to=2019")
    assert "The end year (2019) is before the start year (2022)." in response.content.decode()
    assert titles(response) == ["Gamma"]  # the start year alone applies


def test_the_filter_form_and_sort_links_keep_the_state(client, four_works):
    html = client.get(four_works.get_absolute_url() + "?sort=cited&type=preprint").content.decode()
    assert '<input type="hidden" name="sort" value="cited">' in html
    assert '<option value="preprint" selected>' in html
    assert 'href="?sort=title&amp;type=preprint#works"' in html
    assert 'href="?sort=cited&amp;type=preprint#works" aria-current="true"' in html


def test_works_are_paginated_and_page_links_keep_the_filters(client):
    author = AuthorFactory()
    bulk_works(author, 45)
    url = author.get_absolute_url()
    response = client.get(url + "?sort=title&has_code=false")
    html = response.content.decode()
    assert html.count('class="work-item"') == 20
    assert "Page 1 of 2" in html  # 30 of the 45 works have no code link
    assert 'href="?sort=title&amp;has_code=false&amp;page=2#works"' in html
    html = client.get(url + "?sort=title&has_code=false&page=2").content.decode()
    assert html.count('class="work-item"') == 10
    assert client.get(url + "?page=99").status_code == 200  # past the end: the last page


def test_work_item_shows_everything_a_visitor_needs(client):
    author = AuthorFactory(display_name="Amar Phanishayee")
    coauthors = [AuthorFactory(display_name=f"Coauthor {n}") for n in range(4)]
    work = add_work(
        author,
        position=2,
        title="Efficient Large-Scale Language Model Training",
        type=Work.Type.PREPRINT,
        publication_year=2021,
        publication_date=date(2021, 4, 9),
        venue=VenueFactory(name="arXiv (Cornell University)"),
        arxiv_primary_category="cs.CL",
        arxiv_id="2104.04473",
        comments="Accepted to SC 2021",
        code_url="https://github.com/nvidia/megatron-lm",
        abstract=" ".join(f"word{n}" for n in range(60)),
    )
    for position, coauthor in zip([0, 1, 3, 4], coauthors, strict=True):
        AuthorshipFactory(work=work, author=coauthor, position=position)
    html = client.get(author.get_absolute_url()).content.decode()

    assert ">Preprint<" in html and ">9 Apr 2021<" in html
    assert ">arXiv (Cornell University)<" in html and ">cs.CL<" in html
    assert f'href="{work.get_absolute_url()}"' in html
    assert 'href="https://github.com/nvidia/megatron-lm"' in html and ">Code<" in html
    assert 'href="https://arxiv.org/abs/2104.04473"' in html
    assert "Accepted to SC 2021" in html
    # First three authors in order, then "et al." that opens to the rest, each linked.
    first = html.index("Coauthor 0")
    assert first < html.index("Coauthor 1") < html.index("Amar Phanishayee</a>")
    assert "et al." in html and '<details class="more-authors">' in html
    assert f'href="{coauthors[3].get_absolute_url()}">Coauthor 3</a>' in html
    # The abstract is collapsed behind "more" / "less", without JavaScript.
    assert '<details class="work-abstract">' in html
    assert "word23…" in html and ">more<" in html and ">less<" in html
    assert "word59" in html


def test_an_arxiv_date_is_listed_as_created_with_its_label(client):
    # Seed 001 lists each arXiv record's "Created:" date; an OpenAlex date is the published one.
    author = AuthorFactory()
    add_work(
        author,
        title="From arXiv",
        arxiv_id="2207.07736",
        publication_year=2022,
        publication_date=date(2022, 7, 15),
        provenance={"publication_date": Source.ARXIV, "publication_year": Source.ARXIV},
    )
    add_work(
        author,
        title="From OpenAlex",
        publication_year=2021,
        publication_date=date(2021, 4, 9),
        provenance={"publication_date": Source.OPENALEX},
    )
    html = client.get(author.get_absolute_url()).content.decode()

    created = html.split("From arXiv", 1)[1].split("</article>", 1)[0]
    assert '<span class="label">Created:</span> <time datetime="2022-07-15">15 Jul 2022</time>' in (
        created
    )
    assert '<span class="work-year" title="Year">2022</span>' in html
    published = html.split("From OpenAlex", 1)[1].split("</article>", 1)[0]
    assert "Created:" not in published
    assert 'title="Publication date">9 Apr 2021<' in html


def test_imported_markup_in_titles_and_abstracts_never_runs(client):
    author = AuthorFactory()
    add_work(
        author,
        title='<script>alert("t")</script>Deep <i>nets</i>',
        abstract='Intro <img src=x onerror="alert(1)"> <a href="javascript:alert(2)">x</a> end',
        code_url="javascript:alert(3)",
    )
    html = client.get(author.get_absolute_url()).content.decode()
    assert "<script>alert" not in html
    assert "onerror" not in html
    assert "javascript:" not in html
    assert "<i>nets</i>" in html


# ---- chart and feed ------------------------------------------------------------------


def test_citations_chart_is_accessible_svg_with_a_table(client):
    author = AuthorFactory(display_name="Ada Chart")
    add_work(
        author,
        cited_by_count=30,
        counts_by_year=[
            {"year": 2021, "cited_by_count": 10},
            {"year": 2023, "cited_by_count": 20},
        ],
    )
    author_metrics_refresh(author_ids=[author.pk])
    html = client.get(author.get_absolute_url()).content.decode()

    assert '<svg class="bar-chart"' in html and 'role="img"' in html
    assert '<title id="chart-title">Citations per year of Ada Chart</title>' in html
    # The years a source counts by year may be fewer than the work's whole life: the
    # sum is said to be theirs, not a total beside the citation count.
    assert "from 2021 to 2023: 30 in those years, the most in 2023 (20)." in html
    assert html.count('<rect class="bar"') == 3  # 2022 is there with no citations
    assert '<th scope="row">2022</th><td>0</td>' in html
    assert '<th scope="row">2023</th><td>20</td>' in html


def test_no_chart_without_yearly_counts(client):
    author = AuthorFactory()
    add_work(author)
    author_metrics_refresh(author_ids=[author.pk])
    html = client.get(author.get_absolute_url()).content.decode()
    assert '<svg class="bar-chart"' not in html
    assert "No yearly citation counts have been imported" in html


def test_chart_geometry():
    assert nice_step(7) == 2 and nice_step(45) == 20 and nice_step(2896) == 1000
    chart = citations_chart({"2019": 4, "2020": 0, "2022": 8})
    assert [bar.year for bar in chart.bars] == [2019, 2020, 2021, 2022]
    assert [bar.value for bar in chart.bars] == [4, 0, 0, 8]
    tallest = chart.bars[-1]
    assert tallest.y + tallest.height == pytest.approx(chart.baseline)
    assert chart.bars[0].height == pytest.approx(tallest.height / 2)
    assert [tick.value for tick in chart.ticks] == [0, 2, 4, 6, 8]
    assert citations_chart({}) is None and citations_chart({"n/a": 3}) is None


def test_page_links_its_atom_feed(client):
    author = AuthorFactory()
    html = client.get(author.get_absolute_url()).content.decode()
    assert (
        f'<link rel="alternate" type="application/atom+xml" title="Works of {author.display_name}"'
        f' href="/researchers/{author.pk}/feed.atom">'
    ) in html


def test_atom_feed_lists_works_newest_first_with_absolute_links(client, settings):
    settings.SITE_URL = "https://scholar.example.org"
    author = AuthorFactory(display_name="Feed Person")
    add_work(author, title="Older", publication_year=2019, publication_date=date(2019, 5, 1))
    add_work(author, title="Newer", publication_year=2024, abstract="<script>x()</script>Fine.")
    response = client.get(f"/researchers/{author.pk}/feed.atom", HTTP_HOST="127.0.0.1")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = ElementTree.fromstring(response.content)
    assert feed.find(f"{ATOM}title").text.startswith("Works of Feed Person")
    entries = feed.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}title").text for e in entries] == ["Newer", "Older"]
    link = entries[0].find(f"{ATOM}link").get("href")
    assert link.startswith("https://scholar.example.org/works/")  # SITE_URL, not the Host
    assert feed.find(f"{ATOM}id").text.startswith("https://scholar.example.org/researchers/")
    summary = entries[0].find(f"{ATOM}summary").text
    assert "script" not in summary and "Fine." in summary
    assert client.get("/researchers/999999/feed.atom").status_code == 404


def test_author_with_no_works(client):
    author = AuthorFactory()
    author_metrics_refresh(author_ids=[author.pk])
    html = client.get(author.get_absolute_url()).content.decode()
    assert "No works imported for this researcher yet." in html
    assert Author.objects.count() == 1

"""The public work page, its external-id addresses and its query budget."""

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalogue.models import (
    Funder,
    Grant,
    SourceRecord,
    Topic,
    Work,
    WorkSimilarity,
    WorkTopic,
)
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


def text_of(response) -> str:
    """The page as a visitor reads it: tags dropped, white space collapsed."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.fixture
def work():
    """A work carrying every fact the page can show, as seeds 001 and 003 do."""
    venue = VenueFactory(
        name="ASPLOS 2022: Proceedings of the 27th ACM International Conference",
        type="conference",
        publisher="ACM",
    )
    work = WorkFactory(
        title="Breaking the computation and communication abstraction barrier",
        abstract="Recent trends towards large machine learning models require distributed "
        "training. We present CoCoNet, with speedups of $1.2\\times$ on GPT-3.",
        type=Work.Type.ARTICLE,
        venue=venue,
        publication_date=date(2022, 2, 28),
        publication_year=2022,
        source_created_date=date(2021, 5, 12),
        source_updated_at=datetime(2023, 1, 9, 12, 0, tzinfo=UTC),
        doi="10.1145/3503222.3507778",
        arxiv_id="2105.05720",
        openalex_id="W4220995530",
        comments="Accepted to ASPLOS 2022. Code: https://github.com/parasailteam/coconet",
        code_url="https://github.com/parasailteam/coconet",
        pdf_url="https://arxiv.org/pdf/2105.05720",
        cited_by_count=57,
        embargo_until=timezone.localdate() + timedelta(days=90),
        provenance={
            "title": "openalex",
            "abstract": "openalex",
            "doi": "openalex",
            "arxiv_id": "arxiv",
            "comments": "arxiv",
            "cited_by_count": "openalex",
            "source_created_date": "openalex",
        },
    )
    uw = InstitutionFactory(name="University of Washington")
    msr = InstitutionFactory(name="Microsoft Research")
    people = [
        ("Abhinav Jangda", [uw], ""),
        ("Jun Huang", [], "Ohio State University; Microsoft"),
        ("Olli Saarikivi", [msr], ""),
        ("Madanlal Musuvathi", [msr, uw], ""),
    ]
    # Created out of order: the page follows positions, not ids.
    for position in (2, 0, 3, 1):
        name, places, raw = people[position]
        authorship = AuthorshipFactory(
            work=work,
            author=AuthorFactory(display_name=name),
            position=position,
            raw_affiliation=raw,
            is_corresponding=position == 3,
        )
        authorship.institutions.set(places)
    nsf = Funder.objects.create(name="National Science Foundation")
    Grant.objects.create(work=work, funder=nsf, award_id="2052696")
    Grant.objects.create(work=work, funder=nsf, award_id="1907294")
    Grant.objects.create(work=work, funder=Funder.objects.create(name="Microsoft"), award_id="")
    for key, name, primary in [
        ("openalex:T1", "Parallel Computing", True),
        ("arxiv:cs.DC", "cs.DC", False),
    ]:
        topic = Topic.objects.create(key=key, name=name, kind="topic")
        WorkTopic.objects.create(work=work, topic=topic, source="openalex", is_primary=primary)
    return work


def test_the_page_shows_everything_the_seeds_show(client, work):
    response = client.get(work.get_absolute_url())
    assert response.status_code == 200
    text = text_of(response)
    html = response.content.decode()

    assert "Breaking the computation and communication abstraction barrier" in text
    assert "This content will become publicly available on" in text
    # Authors in order, each linked, with numbered affiliations.
    names = re.findall(r'<li><a href="/researchers/\d+-[\w-]+/">([^<]+)</a>', html)
    assert names == ["Abhinav Jangda", "Jun Huang", "Olli Saarikivi", "Madanlal Musuvathi"]
    affiliations = re.search(r'<ol class="affiliations".*?</ol>', html, re.S).group(0)
    # An institution record links to its page on this site; text as written does not.
    found = re.findall(
        r'<li>(?:<a href="/institutions/\d+-[\w-]+/">)?([^<]+?)(?:</a>)? <span', affiliations
    )
    assert found == [
        "University of Washington",
        "Ohio State University",
        "Microsoft",
        "Microsoft Research",
    ]
    assert "1,4" in html  # Musuvathi: Microsoft Research (4) and Washington (1)
    assert "corresponding author" in text
    # Abstract with its LaTeX left as text, and where it came from.
    assert "speedups of $1.2\\times$ on GPT-3." in text
    assert "Abstract from OpenAlex" in text
    # Venue, type, dates.
    assert "Conference ASPLOS 2022: Proceedings of the 27th ACM International Conference" in text
    assert "Type Article" in text
    assert "Published 28 Feb 2022" in text
    assert "Created 12 May 2021 ◦ from OpenAlex" not in text  # the marker is CSS, not text
    assert "Created 12 May 2021 from OpenAlex" in text
    assert "Updated 9 Jan 2023" in text
    # Identifiers as links, with their sources.
    assert 'href="https://doi.org/10.1145/3503222.3507778"' in html
    assert 'href="https://arxiv.org/abs/2105.05720"' in html
    assert 'href="https://openalex.org/W4220995530"' in html
    assert "arXiv:2105.05720 from arXiv" in text
    # Comments (with the address linked), code and PDF.
    assert "Accepted to ASPLOS 2022." in text
    assert '<a href="https://github.com/parasailteam/coconet" rel="nofollow">' in html
    assert re.search(r'<a class="button[^"]*" href="https://github.com/parasailteam/coconet"', html)
    assert re.search(r'<a class="button[^"]*" href="https://arxiv.org/pdf/2105.05720"', html)
    # Funders and award ids, topics, citations, exports.
    assert "National Science Foundation Award IDs: 1907294, 2052696" in text
    assert "Microsoft No award id given" in text
    assert re.search(r"Topics Parallel Computing cs\.DC", text)
    assert "Citations 57 from OpenAlex" in text
    assert f'href="/works/{work.pk}/export.bib"' in html
    assert f'href="/works/{work.pk}/export.ris"' in html
    assert "Where each fact comes from" in text
    assert "Comments arXiv" in text


def test_an_ended_embargo_is_told_in_the_past(client, work):
    work.embargo_until = date(2023, 2, 28)
    work.save()
    text = text_of(client.get(work.get_absolute_url()))
    assert "This content was under embargo until 28 Feb 2023." in text
    assert "will become publicly available" not in text


def test_a_bare_record_says_what_is_not_known(client):
    work = WorkFactory(title="Lonely record", abstract="", cited_by_count=None)
    text = text_of(client.get(work.get_absolute_url()))
    assert "No authors recorded." in text
    assert "No abstract was imported for this work." in text
    assert "Citations Not known" in text
    assert "No external identifier recorded" in text
    assert "No similar works found yet." in text
    assert "embargo" not in text


def test_an_author_without_a_public_record_is_not_linked(client):
    work = WorkFactory()
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Shown", is_deleted=False))
    gone = AuthorFactory(display_name="Deleted placeholder", is_deleted=True)
    AuthorshipFactory(work=work, author=gone, position=1, raw_name="R. Aw Name")
    html = client.get(work.get_absolute_url()).content.decode()
    assert re.search(r'<a href="/researchers/\d+-shown/">Shown</a>', html)
    assert "<span>R. Aw Name</span>" in html
    assert "Deleted placeholder" not in html


def test_a_wrong_slug_redirects_permanently_and_a_merged_work_for_now(client, work):
    response = client.get(f"/works/{work.pk}-old-title/")
    assert response.status_code == 301
    assert response["Location"] == work.get_absolute_url()
    assert client.get(f"/works/{work.pk}/").status_code == 301
    merged = WorkFactory(merged_into=work)
    response = client.get(merged.get_absolute_url())
    assert response.status_code == 302  # staff can undo the merge: no browser may keep it
    assert response["Location"] == work.get_absolute_url()
    Work.objects.filter(pk=merged.pk).update(merged_into=None)  # the merge undone
    assert client.get(merged.get_absolute_url()).status_code == 200
    assert client.get("/works/999999-nothing/").status_code == 404


def test_more_like_this_shows_five_with_authors_abstract_and_reasons(client, work):
    long_abstract = " ".join(f"word{i}" for i in range(60))
    for rank in range(7):
        other = WorkFactory(title=f"Neighbour {rank}", abstract=long_abstract)
        for position in range(5):
            AuthorshipFactory(work=other, position=position)
        WorkSimilarity.objects.create(
            work=work,
            similar=other,
            score=0.9 - rank / 10,
            reasons=[
                {"kind": "topics", "label": "shares topics Parallel Computing, cs.DC"},
                {"kind": "text", "label": "similar abstract"},
            ],
        )
    WorkSimilarity.objects.filter(similar__title="Neighbour 0").update(score=0.1)
    response = client.get(work.get_absolute_url())
    html = response.content.decode()
    section = re.search(r'<section class="more-like-this".*?</section>', html, re.S).group(0)
    titles = re.findall(r'<h3 class="work-title"><a href="[^"]+">([^<]+)</a>', section)
    assert titles == ["Neighbour 1", "Neighbour 2", "Neighbour 3", "Neighbour 4", "Neighbour 5"]
    assert section.count("et al.") == 5
    assert section.count('<details class="more-less">') == 5
    assert "word0 word1" in section and "word59" in section
    assert section.count("shares topics Parallel Computing, cs.DC") == 5
    assert section.count(">similar abstract<") == 5


def test_similar_works_that_were_merged_away_are_not_shown(client, work):
    other = WorkFactory(title="Merged neighbour", merged_into=WorkFactory())
    WorkSimilarity.objects.create(work=work, similar=other, score=0.5, reasons=[])
    assert "Merged neighbour" not in client.get(work.get_absolute_url()).content.decode()


def _page_queries(client, work) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(work.get_absolute_url()).status_code == 200
    return len(queries)


def _work_with_authors(count: int) -> Work:
    work = WorkFactory(title=f"Work with {count} authors")
    place = InstitutionFactory()
    for position in range(count):
        authorship = AuthorshipFactory(work=work, position=position)
        authorship.institutions.add(place)
    for rank in range(5):
        other = WorkFactory(title=f"Like {count} {rank}")
        for position in range(count):
            AuthorshipFactory(work=other, position=position)
        WorkSimilarity.objects.create(work=work, similar=other, score=0.5, reasons=[])
    return work


def test_query_count_is_the_same_for_3_or_300_authors(client, django_assert_max_num_queries):
    small, large = _work_with_authors(3), _work_with_authors(300)
    with django_assert_max_num_queries(18):
        client.get(large.get_absolute_url())
    client.get(small.get_absolute_url())  # both pages' summaries and list entries kept
    # A kept summary (the byline's first names and its last among its facts) is one
    # query, whatever the byline's length.
    assert _page_queries(client, large) == _page_queries(client, small)


def test_a_real_openalex_record_renders_with_its_affiliations(client, real_fixtures):
    call_command(
        "import_file",
        str(real_fixtures / "openalex" / "works__W2741809807__2025-06.json"),
        verbosity=0,
    )
    work = Work.objects.get(openalex_id="W2741809807")
    response = client.get(work.get_absolute_url())
    text = text_of(response)
    html = response.content.decode()
    assert "The state of OA: a large-scale analysis" in text
    assert len(re.findall(r'<li><a href="/researchers/', html)) == 9
    assert "Université du Québec à Montréal" in text
    assert 'href="https://doi.org/10.7717/peerj.4375"' in html
    assert 'href="https://pubmed.ncbi.nlm.nih.gov/29456894/"' in html
    assert "Citations 962 from OpenAlex" in text
    assert "Academic Publishing and Open Access" in text
    assert "Journal PeerJ" in text


# External-id addresses ---------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/works/doi/10.1145/3503222.3507778/",
        "/works/doi/10.1145/3503222.3507778",  # CommonMiddleware adds the slash first
        "/works/doi/https://doi.org/10.1145/3503222.3507778/",
        "/works/doi/10.1145/3503222.3507778/".upper().replace("/WORKS/DOI/", "/works/doi/"),
        "/works/arxiv/2105.05720/",
        "/works/arxiv/2105.05720v3/",
        "/works/arxiv/arXiv:2105.05720v1/",
        "/works/doi/10.48550/arXiv.2105.05720/",
        "/works/openalex/W4220995530/",
        "/works/openalex/https://openalex.org/W4220995530/",
    ],
)
def test_external_ids_redirect_to_our_page(client, work, path):
    response = client.get(path, follow=True)
    assert response.redirect_chain[-1] == (work.get_absolute_url(), 302)
    assert response.status_code == 200


def test_old_style_arxiv_ids_with_versions_resolve(client):
    work = WorkFactory(arxiv_id="hep-th/9901001")
    response = client.get("/works/arxiv/hep-th/9901001v2/")
    assert response.status_code == 302
    assert response["Location"] == work.get_absolute_url()


def test_an_external_id_of_a_merged_work_leads_to_the_surviving_one(client, work):
    WorkFactory(openalex_id="W1", merged_into=work)
    response = client.get("/works/openalex/W1/")
    assert response.status_code == 302
    assert response["Location"] == work.get_absolute_url()


@pytest.mark.parametrize(("source", "path"), [("openalex", "W3188841554"), ("arxiv", "2108.04680")])
def test_the_id_of_a_record_merged_into_a_work_leads_to_that_work(client, work, source, path):
    # A preprint's own OpenAlex record became part of its published version's work:
    # the work keeps one OpenAlex id, and the record's id still finds the work.
    SourceRecord.objects.create(
        source=source, external_id=path, payload={}, fetched_at=timezone.now(), work=work
    )
    response = client.get(f"/works/{source}/{path}/")
    assert response.status_code == 302
    assert response["Location"] == work.get_absolute_url()


def test_an_unknown_but_valid_id_answers_404_with_a_way_forward(client):
    response = client.get("/works/doi/10.1000/XYZ123/")
    assert response.status_code == 404
    text = text_of(response)
    assert "No work with DOI 10.1000/xyz123" in text
    assert 'href="https://doi.org/10.1000/xyz123"' in response.content.decode()
    assert "We have not imported a work with this DOI yet" in text
    response = client.get("/works/arxiv/astro-ph/0601001/")
    assert response.status_code == 404
    assert 'href="https://arxiv.org/abs/astro-ph/0601001"' in response.content.decode()


@pytest.mark.parametrize(
    ("path", "label", "example"),
    [
        ("/works/doi/not-a-doi/", "DOI", "10.1145/3503222.3507778"),
        ("/works/arxiv/12345/", "arXiv id", "2102.04285"),
        ("/works/openalex/A5023888391/", "OpenAlex id", "W2741809807"),
    ],
)
def test_a_malformed_id_answers_404_saying_what_it_should_look_like(client, path, label, example):
    response = client.get(path)
    assert response.status_code == 404
    text = text_of(response)
    assert f"is not a well-formed {label}" in text
    assert example in text
    assert 'name="q"' in response.content.decode()

"""A researcher whose works are not all imported: the source's own counts, named and dated,
beside what is held here; the whole affiliation history with where each place comes from."""

import re
from datetime import UTC, datetime

import pytest

from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorInstitution, AuthorMetrics, Source, SourceRecord
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory
from tests.people import signed_in

pytestmark = pytest.mark.django_db

AS_OF = datetime(2025, 6, 8, 21, 53, tzinfo=UTC)


def counted(author=None, **fields):
    """An author whose OpenAlex record counts 33 works and 63 citations."""
    values = {
        "counts_source": Source.OPENALEX,
        "counts_as_of": AS_OF,
        "source_works_count": 33,
        "source_cited_by_count": 63,
        "source_h_index": 4,
        "source_i10_index": 2,
        "source_mean_citedness": 1.5,
        "source_topics_count": 25,
        "source_counts_by_year": [{"year": 2024, "works": 3, "citations": 20}],
        "openalex_id": "A5000000001",
    } | fields
    if author is None:
        author = AuthorFactory(display_name="Ada Lovelace", **values)
    else:
        for name, value in values.items():
            setattr(author, name, value)
        author.save()
    author_metrics_refresh(author_ids=[author.pk])
    return author


def text(html: str) -> str:
    words = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    return re.sub(r" ([,;.])", r"\1", words)


def glance(html: str) -> str:
    return re.search(r'<section class="panel researcher-stats".*?</section>', html, re.S).group(0)


def test_a_record_without_its_works_shows_the_sources_counts_dated(client):
    author = counted()
    html = client.get(author.get_absolute_url()).content.decode()
    panel = text(glance(html))
    assert "Per OpenAlex, as of 8 Jun 2025" in panel
    assert "33 works per OpenAlex (as of 2025-06-08), 0 imported here" in panel
    assert "works per OpenAlex 33 citations per OpenAlex 63" in panel  # label, then figure
    assert "topics OpenAlex lists 25" in panel
    assert "Held here: 0 of 33 works imported" in panel
    # No zero of ours stands as the record's count.
    for ours in ("0 works", "0 topics", "0 close collaborators", "0 h-index"):
        assert ours not in panel
    assert "citations unknown" not in panel
    assert "0 published items held here, of 33 per OpenAlex" in text(html)
    assert "OpenAlex counts 33 (as of 8 Jun 2025)" in text(html)
    # The chart is the source's, said to be.
    assert "Citations per year of the whole record as OpenAlex counts them" in text(html)
    description = re.search(r'<meta name="description" content="([^"]*)"', html).group(1)
    assert description.startswith("Ada Lovelace: 33 works per OpenAlex, 63 citations")


def test_some_works_held_are_shown_as_held_here_beside_the_sources_count(client):
    author = AuthorFactory(display_name="Ada Lovelace")
    for year in (2020, 2021):
        AuthorshipFactory(author=author, work=WorkFactory(publication_year=year, cited_by_count=5))
    author = counted(author)
    panel = text(glance(client.get(author.get_absolute_url()).content.decode()))
    assert "Held here: 2 of 33 works imported" in panel
    assert "2 works held here" in panel
    assert "Computed from the 2 works held here on" in panel


def test_a_record_whose_works_are_all_here_leads_with_our_figures(client):
    author = AuthorFactory(display_name="Ada Lovelace")
    AuthorshipFactory(author=author, work=WorkFactory(publication_year=2020, cited_by_count=5))
    author = counted(author, source_works_count=1, source_cited_by_count=7)
    panel = text(glance(client.get(author.get_absolute_url()).content.decode()))
    assert "Per OpenAlex" not in panel
    assert "OpenAlex counts 1 work, 7 citations and an h-index of 4 for this record" in panel
    assert "as of 8 Jun 2025" in panel


def test_a_record_without_source_counts_shows_no_source_figures(client):
    author = AuthorFactory(display_name="Ada Lovelace")
    author_metrics_refresh(author_ids=[author.pk])
    html = client.get(author.get_absolute_url()).content.decode()
    assert 'data-testid="source-counts' not in html
    assert "per OpenAlex" not in html


def test_staff_are_shown_how_to_import_the_missing_works(staff):
    author = counted()
    html = signed_in(staff).get(author.get_absolute_url()).content.decode()
    panel = re.search(r'data-testid="works-import".*?</section>', html, re.S).group(0)
    assert "33 works per OpenAlex, 0 imported" in text(panel)
    assert 'href="/admin/publications/importrun/new/"' in panel
    assert "A5000000001" in panel


def test_the_owner_is_shown_how_to_add_the_missing_works(author, owner):
    counted(author)
    html = signed_in(owner).get(author.get_absolute_url()).content.decode()
    panel = re.search(r'data-testid="works-import".*?</section>', html, re.S).group(0)
    assert f'href="/researchers/{author.pk}/edit/#add-work"' in panel


def test_nobody_else_is_shown_an_import_link(client, author, stranger):
    counted(author)
    for visitor in (client, signed_in(stranger)):
        assert (
            'data-testid="works-import"'
            not in visitor.get(author.get_absolute_url()).content.decode()
        )


def test_no_import_link_once_the_works_are_here(staff):
    author = AuthorFactory(display_name="Ada Lovelace")
    AuthorshipFactory(author=author, work=WorkFactory())
    author = counted(author, source_works_count=1)
    html = signed_in(staff).get(author.get_absolute_url()).content.decode()
    assert 'data-testid="works-import"' not in html


def test_the_api_gives_the_sources_counts_apart_from_ours(client):
    author = counted()
    body = client.get(f"/api/v1/authors/{author.pk}/").json()
    assert body["works_count"] == 0
    counts = body["source_counts"]
    assert counts["source"] == "openalex"
    assert counts["as_of"].startswith("2025-06-08")
    assert (counts["works_count"], counts["cited_by_count"]) == (33, 63)
    assert (counts["h_index"], counts["i10_index"], counts["topics_count"]) == (4, 2, 25)
    assert counts["two_year_mean_citedness"] == 1.5
    assert counts["counts_by_year"] == [{"year": 2024, "works": 3, "citations": 20}]
    assert body["metrics"]["computed_at"]


def test_the_api_gives_no_source_counts_for_a_record_without_them(client):
    author = AuthorFactory()
    assert client.get(f"/api/v1/authors/{author.pk}/").json()["source_counts"] is None


# The affiliation history ----------------------------------------------------------


def test_the_whole_history_is_shown_the_rest_behind_a_disclosure(client):
    author = AuthorFactory(display_name="Ada Lovelace")
    places = [InstitutionFactory(name=f"Place {n:02d}") for n in range(12)]
    for n, place in enumerate(places):
        AuthorInstitution.objects.create(
            author=author, institution=place, years=[2000 + n], in_author_record=True
        )
    author_metrics_refresh(author_ids=[author.pk])
    html = glance(client.get(author.get_absolute_url()).content.decode())
    shown, rest = html.split('<details class="more-affiliations">')
    assert [f"Place {n:02d}" for n in (11, 10, 9, 8, 7)] == re.findall(r"Place \d\d", shown)
    assert "7 more affiliations" in rest
    assert sorted(re.findall(r"Place \d\d", rest)) == [f"Place {n:02d}" for n in range(7)]
    assert "<script" not in html


def test_each_affiliation_says_where_it_comes_from(client):
    record = InstitutionFactory(name="Listed Place")
    byline = InstitutionFactory(name="Byline Place")
    both = InstitutionFactory(name="Both Place")
    claimed = InstitutionFactory(name="Claimed Place")
    author = AuthorFactory(display_name="Ada Lovelace", last_known_institution=both)
    AuthorInstitution.objects.create(
        author=author, institution=record, years=[2015, 2016], in_author_record=True
    )
    AuthorInstitution.objects.create(author=author, institution=both, in_author_record=True)
    AuthorInstitution.objects.create(author=author, institution=claimed, source=Source.CLAIM)
    for year, places in ((2019, [byline, both]), (2021, [byline])):
        authorship = AuthorshipFactory(author=author, work=WorkFactory(publication_year=year))
        authorship.institutions.set(places)
    author_metrics_refresh(author_ids=[author.pk])
    items = re.findall(
        r"<li>.*?</li>", glance(client.get(author.get_absolute_url()).content.decode()), re.S
    )
    lines = {text(item).split(" ")[0]: text(item) for item in items}
    assert lines["Both"].startswith("Both Place current")
    assert "Source: OpenAlex author record; bylines of 1 work held here, 2019" in lines["Both"]
    assert "Listed Place 2015–2016 Source: OpenAlex author record" in lines["Listed"]
    assert "Source: bylines of 2 works held here, 2019–2021" in lines["Byline"]
    assert "Source: added by the researcher" in lines["Claimed"]


# When each figure was reported and computed ---------------------------------------


def test_the_figures_say_when_their_sources_reported_them_and_when_they_were_computed(client):
    author = AuthorFactory(display_name="Ada Lovelace")
    for day, source_date in ((1, datetime(2024, 3, 1, tzinfo=UTC)), (2, None)):
        work = WorkFactory(publication_year=2020, cited_by_count=day)
        AuthorshipFactory(author=author, work=work)
        SourceRecord.objects.create(
            source=Source.OPENALEX,
            external_id=f"W{day}",
            payload={},
            content_hash="x",
            source_updated_at=source_date,
            fetched_at=datetime(2025, 1, day, tzinfo=UTC),  # the date when the source gives none
            work=work,
        )
    author = counted(author, source_works_count=2)
    metrics = AuthorMetrics.objects.get(author=author)
    assert metrics.works_dated_from == datetime(2024, 3, 1, tzinfo=UTC)
    assert metrics.works_dated_to == datetime(2025, 1, 2, tzinfo=UTC)
    panel = text(glance(client.get(author.get_absolute_url()).content.decode()))
    assert (
        "Computed from the 2 works held here on "
        f"{metrics.computed_at:%-d %b %Y}, from records their sources last updated "
        "from 1 Mar 2024 to 2 Jan 2025; the author record (affiliations and the source's "
        "counts) as OpenAlex last updated it on 8 Jun 2025."
    ) in panel

"""The researcher feed as feed readers read it, DOI addresses and the sitemap's host."""

from __future__ import annotations

from datetime import UTC, date, datetime
from xml.etree import ElementTree

import feedparser
import pytest
from django.contrib.sites.models import Site

from catalogue import identifiers
from catalogue.models import UnlinkedAuthorship, Work
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db

SITE = "https://scholar.example.org"


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = SITE


def feed_of(client, author):
    response = client.get(f"/researchers/{author.pk}/feed.atom")
    assert response.status_code == 200
    parsed = feedparser.parse(response.content)
    assert not parsed.bozo, parsed.get("bozo_exception")
    return parsed


def test_entry_ids_stay_when_the_title_changes(client):
    author = AuthorFactory(display_name="Grace Hopper")
    work = WorkFactory(title="First title", publication_date=date(2020, 5, 1))
    AuthorshipFactory(work=work, author=author)
    [before] = feed_of(client, author).entries
    Work.objects.filter(pk=work.pk).update(title="Another title")
    [after] = feed_of(client, author).entries
    assert before.id == after.id == f"{SITE}/works/{work.pk}/"
    assert before.link != after.link  # the link follows the slug; the id does not


def test_every_coauthor_is_an_author_element(client):
    author = AuthorFactory(display_name="Grace Hopper")
    other = AuthorFactory(display_name="Howard Aiken")
    work = WorkFactory(title="Compilers", publication_date=date(1952, 5, 1))
    AuthorshipFactory(work=work, author=author, position=0)
    AuthorshipFactory(work=work, author=other, position=1)
    UnlinkedAuthorship.objects.create(work=work, position=2, raw_name="Unlinked, Name")
    [entry] = feed_of(client, author).entries
    assert [a["name"] for a in entry.authors] == ["Grace Hopper", "Howard Aiken", "Unlinked, Name"]
    assert entry.authors[1]["href"] == SITE + other.get_absolute_url()
    assert "href" not in entry.authors[2]


def test_updated_is_the_records_own_date_not_the_import_time(client):
    author = AuthorFactory()
    changed = datetime(2023, 3, 4, 5, 6, 7, tzinfo=UTC)
    with_source_date = WorkFactory(
        publication_date=date(2019, 1, 2), publication_year=2019, source_updated_at=changed
    )
    only_published = WorkFactory(
        publication_date=date(2018, 7, 1), publication_year=2018, source_updated_at=None
    )
    for position, work in enumerate([with_source_date, only_published]):
        AuthorshipFactory(work=work, author=author, position=position)
    parsed = feed_of(client, author)
    by_id = {entry.id: entry for entry in parsed.entries}
    newer = by_id[f"{SITE}/works/{with_source_date.pk}/"]
    older = by_id[f"{SITE}/works/{only_published.pk}/"]
    assert newer.updated == "2023-03-04T05:06:07+00:00"
    assert newer.published.startswith("2019-01-02")
    assert older.updated.startswith("2018-07-01")
    assert parsed.feed.updated == "2023-03-04T05:06:07+00:00"  # the newest record's date


@pytest.mark.parametrize(
    ("day", "precision", "year", "published"),
    [
        (date(2003, 5, 17), "day", 2003, "2003-05-17T00:00:00+00:00"),
        (date(2003, 5, 1), "month", 2003, None),  # May 2003: no day to give
        (date(2003, 1, 1), "year", 2003, None),
        (None, "day", 2003, None),  # a bare year
        (date(2002, 12, 30), "day", 2003, None),  # a date of another year: only the year holds
    ],
)
def test_published_is_given_only_for_a_day_the_source_gives(
    client, day, precision, year, published
):
    author = AuthorFactory()
    work = WorkFactory(
        publication_date=day, publication_date_precision=precision, publication_year=year
    )
    AuthorshipFactory(work=work, author=author)
    response = client.get(f"/researchers/{author.pk}/feed.atom")
    [entry] = ElementTree.fromstring(response.content).iter("{http://www.w3.org/2005/Atom}entry")
    found = entry.find("{http://www.w3.org/2005/Atom}published")
    assert (found.text if found is not None else None) == published
    updated = entry.find("{http://www.w3.org/2005/Atom}updated").text
    if published is None:  # no first of the month or of January stands in for it
        assert not updated.startswith(("2003-01-01", "2003-05-01", "2002-12-30"))
    else:
        assert updated == published
    feed_of(client, author)  # still a feed readers accept


def test_the_feed_is_well_formed_with_hostile_names(client):
    author = AuthorFactory(display_name="<b>Bold</b> & Co")
    work = WorkFactory(title="A < B & C", publication_date=date(2021, 1, 1))
    AuthorshipFactory(work=work, author=author)
    response = client.get(f"/researchers/{author.pk}/feed.atom")
    ElementTree.fromstring(response.content)
    [entry] = feed_of(client, author).entries
    assert entry.title == "A < B & C"


# DOI addresses ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doi", "address"),
    [
        ("10.1000/plain.123", "https://doi.org/10.1000/plain.123"),
        ("10.1002/(sici)1097-0258[1]", "https://doi.org/10.1002/%28sici%291097-0258%5B1%5D"),
        ("10.1000/a#b?c%d e;f<g>", "https://doi.org/10.1000/a%23b%3Fc%25d%20e%3Bf%3Cg%3E"),
        ("10.1000/é", "https://doi.org/10.1000/%C3%A9"),
        (None, ""),
    ],
)
def test_doi_addresses_are_percent_encoded(doi, address):
    assert identifiers.doi_url(doi) == address


def test_the_page_for_a_doi_we_lack_links_it_encoded(client):
    response = client.get("/works/doi/10.1002/x[1]/")
    assert response.status_code == 404
    assert 'href="https://doi.org/10.1002/x%5B1%5D"' in response.content.decode()


# The sitemap -----------------------------------------------------------------------------


def test_the_sitemap_names_the_site_url_not_the_sites_row(client, settings):
    settings.SITE_URL = "https://records.example.net"
    Site.objects.update_or_create(pk=settings.SITE_ID, defaults={"domain": "stale.example.com"})
    Site.objects.clear_cache()
    work = WorkFactory(title="Mapped")
    index = client.get("/sitemap.xml", HTTP_HOST="127.0.0.1").content.decode()
    assert "https://records.example.net/sitemap-works.xml" in index
    assert "stale.example.com" not in index and "127.0.0.1" not in index
    works = client.get("/sitemap-works.xml", HTTP_HOST="127.0.0.1").content.decode()
    assert f"<loc>https://records.example.net{work.get_absolute_url()}</loc>" in works
    assert "stale.example.com" not in works

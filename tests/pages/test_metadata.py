"""Pages carry metadata that reference managers and crawlers read.

Zotero's Embedded Metadata translator reads Highwire ``citation_*`` tags; search
engines read JSON-LD and OpenGraph. The pages are read here the way those
consumers read them: extruct for JSON-LD and OpenGraph, the meta tags by name.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import extruct
import pytest
from django.conf import settings
from django.core.management import call_command

from catalogue.models import Author, Work
from config.sitemaps import ResearcherSitemap, WorkSitemap
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.sources.openalex.mapping import map_work
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory
from tests.hostile import SCRIPT, good_works, write_hostile_snapshot

pytestmark = pytest.mark.django_db

SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


class _Head(HTMLParser):
    """Meta tags (name or property -> contents), canonical links and ld+json bodies."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.canonical: list[str] = []
        self.ld_json: list[str] = []
        self._in_ld = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (key := attrs.get("name") or attrs.get("property")):
            self.meta.setdefault(key, []).append(attrs.get("content", ""))
        elif tag == "link" and attrs.get("rel") == "canonical":
            self.canonical.append(attrs.get("href", ""))
        elif tag == "script" and attrs.get("type") == "application/ld+json":
            self._in_ld = True
            self.ld_json.append("")

    def handle_data(self, data):
        if self._in_ld:
            self.ld_json[-1] += data

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_ld = False


def head_of(response) -> _Head:
    assert response.status_code == 200
    parser = _Head()
    parser.feed(response.content.decode())
    return parser


def structured(response) -> dict:
    return extruct.extract(
        response.content.decode(),
        base_url=settings.SITE_URL,
        syntaxes=["json-ld", "opengraph"],
        uniform=True,
    )


@pytest.fixture
def peerj(real_fixtures) -> Work:
    call_command(
        "import_file",
        str(real_fixtures / "openalex" / "works__W2741809807__2025-06.json"),
        verbosity=0,
    )
    return Work.objects.get(openalex_id="W2741809807")


# Highwire, JSON-LD and OpenGraph on a work page ---------------------------------


def test_a_reference_manager_finds_title_authors_date_journal_and_ids(client, peerj):
    head = head_of(client.get(peerj.get_absolute_url()))
    meta = head.meta
    assert meta["citation_title"] == [
        "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles"
    ]
    assert len(meta["citation_author"]) == 9
    assert meta["citation_author"][0] == "Heather Piwowar"
    assert meta["citation_publication_date"] == ["2018/02/13"]
    assert meta["citation_journal_title"] == ["PeerJ"]
    assert meta["citation_volume"] == ["6"]
    assert meta["citation_firstpage"] == ["e4375"]
    assert "citation_issue" not in meta  # the source gave none
    assert meta["citation_doi"] == ["10.7717/peerj.4375"]
    assert meta["citation_pdf_url"] == ["https://peerj.com/articles/4375.pdf"]
    assert meta["citation_abstract_html_url"] == [settings.SITE_URL + peerj.get_absolute_url()]


def test_json_ld_and_opengraph_describe_the_article(client, peerj):
    found = structured(client.get(peerj.get_absolute_url()))
    (article,) = found["json-ld"]
    assert article["@type"] == "ScholarlyArticle"
    assert article["name"].startswith("The state of OA")
    assert article["datePublished"] == "2018-02-13"
    assert [a["name"] for a in article["author"]][:2] == ["Heather Piwowar", "Jason Priem"]
    assert all(a["url"].startswith(settings.SITE_URL + "/researchers/") for a in article["author"])
    assert "https://doi.org/10.7717/peerj.4375" in article["sameAs"]
    assert {
        "@type": "PropertyValue",
        "propertyID": "DOI",
        "value": "10.7717/peerj.4375",
    } in article["identifier"]
    assert article["isPartOf"]["volumeNumber"] == "6"
    assert article["isPartOf"]["isPartOf"]["name"] == "PeerJ"
    assert article["isAccessibleForFree"] is True
    (graph,) = found["opengraph"]
    assert graph["@type"] == "article"  # og:type, as extruct names it
    assert graph["og:title"].startswith("The state of OA")
    assert graph["og:url"] == settings.SITE_URL + peerj.get_absolute_url()


def test_a_preprint_carries_its_arxiv_id_and_no_journal(client):
    work = WorkFactory(
        title="Attention is all you need", arxiv_id="1706.03762", type=Work.Type.PREPRINT
    )
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Ashish Vaswani"))
    meta = head_of(client.get(work.get_absolute_url())).meta
    assert meta["citation_arxiv_id"] == ["1706.03762"]
    assert meta["citation_author"] == ["Ashish Vaswani"]
    assert meta["citation_publication_date"] == ["2021"]
    assert "citation_journal_title" not in meta
    assert "citation_doi" not in meta


def test_a_pdf_address_that_is_not_http_is_never_offered(client):
    work = WorkFactory(pdf_url="javascript:alert(1)", venue=VenueFactory())
    meta = head_of(client.get(work.get_absolute_url())).meta
    assert "citation_pdf_url" not in meta


def test_markup_in_a_title_is_text_in_every_metadata_form(client):
    work = WorkFactory(title=f"Safe words {SCRIPT} and </script><script>alert(1)</script>")
    response = client.get(work.get_absolute_url())
    html = response.content.decode()
    head = head_of(response)
    (body,) = head.ld_json
    assert "<" not in body  # written as \u003c: no value can end the element
    assert json.loads(body)["name"].startswith("Safe words")
    # Attribute values are escaped text: what reaches a reader is the plain title.
    assert head.meta["citation_title"][0].startswith("Safe words")
    assert "<script" not in head.meta["citation_title"][0]
    assert "<script>alert" not in html


# Hostile records ----------------------------------------------------------------


def test_hostile_records_keep_one_well_formed_json_ld_and_only_web_addresses(client, tmp_path):
    write_hostile_snapshot(tmp_path / "works.jsonl")
    run = import_run_create(
        source="openalex",
        kind="file",
        parameters={"paths": [str(tmp_path / "works.jsonl")]},
        queue=False,
    )
    import_run_execute(run_id=run.pk)
    works = Work.objects.filter(openalex_id__in=[w["id"].rsplit("/", 1)[1] for w in good_works()])
    assert works.exists()
    for work in works:
        response = client.get(work.get_absolute_url())
        head = head_of(response)
        assert len(head.ld_json) == 1
        data = json.loads(head.ld_json[0])
        assert data["@type"] == "ScholarlyArticle"
        assert not re.search(r"</script", head.ld_json[0], re.I)
        for key in ("citation_pdf_url", "citation_abstract_html_url"):
            for url in head.meta.get(key, []):
                assert url.startswith(("http://", "https://")), url
        assert structured(response)["json-ld"]
        for person in data.get("author", []):
            assert "<" not in person["name"]


# Researcher pages and canonical addresses ------------------------------------------


def test_a_researcher_page_is_a_person_the_same_as_their_orcid_and_openalex_records(client):
    author = AuthorFactory(
        display_name="Grace Hopper", orcid="0000-0002-1825-0097", openalex_id="A5023888391"
    )
    response = client.get(author.get_absolute_url())
    (person,) = structured(response)["json-ld"]
    assert person["@type"] == "Person"
    assert person["name"] == "Grace Hopper"
    assert set(person["sameAs"]) == {
        "https://orcid.org/0000-0002-1825-0097",
        "https://openalex.org/A5023888391",
    }
    assert head_of(response).meta["og:type"] == ["profile"]


@pytest.mark.parametrize("path", ["/", "/search/?q=example", "/trust/"])
def test_every_page_names_one_absolute_canonical_address(client, path):
    head = head_of(client.get(path))
    assert head.canonical == [settings.SITE_URL + path.split("?")[0]]
    assert head.meta["og:url"] == head.canonical


def test_work_and_researcher_pages_are_canonical_without_their_query(client):
    author = AuthorFactory()
    work = WorkFactory()
    for page in (work.get_absolute_url(), author.get_absolute_url()):
        head = head_of(client.get(page + "?page=1&sort=year"))
        assert head.canonical == [settings.SITE_URL + page]


# Sitemap -------------------------------------------------------------------------


def _locations(response) -> list[str]:
    assert response.status_code == 200
    root = ElementTree.fromstring(response.content)
    return [node.text for node in root.iterfind(".//s:loc", SITEMAP_NS)]


def test_the_sitemap_index_pages_every_public_work_and_researcher(client, monkeypatch):
    monkeypatch.setattr(WorkSitemap, "limit", 2)
    monkeypatch.setattr(ResearcherSitemap, "limit", 2)
    works = WorkFactory.create_batch(5)
    merged = WorkFactory(merged_into=works[0])
    authors = AuthorFactory.create_batch(3)
    deleted = AuthorFactory(is_deleted=True)
    index = _locations(client.get("/sitemap.xml"))
    assert len([u for u in index if "sitemap-works.xml" in u]) == 3
    assert len([u for u in index if "sitemap-researchers.xml" in u]) == 2
    assert all(u.startswith(settings.SITE_URL + "/") for u in index)
    listed = []
    for url in index:
        listed += _locations(client.get(url.removeprefix(settings.SITE_URL)))
    expected = {settings.SITE_URL + o.get_absolute_url() for o in [*works, *authors]}
    assert set(listed) == expected
    assert settings.SITE_URL + merged.get_absolute_url() not in listed
    assert settings.SITE_URL + deleted.get_absolute_url() not in listed


def test_a_sitemap_page_costs_the_same_queries_at_any_size(client, django_assert_max_num_queries):
    WorkFactory.create_batch(30)
    with django_assert_max_num_queries(4):
        client.get("/sitemap-works.xml")
    assert Author.objects.count() == 0


# Mapping -------------------------------------------------------------------------


def _payload(**extra) -> dict:
    return {"id": "https://openalex.org/W1", "title": "A title", **extra}


def test_biblio_and_open_access_are_mapped_from_openalex():
    record = map_work(
        _payload(
            biblio={"volume": 12, "issue": "3", "first_page": "101", "last_page": "119"},
            open_access={"is_oa": True, "oa_status": "Green", "oa_url": "https://repo.example/x"},
            best_oa_location={"pdf_url": "https://repo.example/x.pdf"},
        )
    )
    assert (record.volume, record.issue, record.first_page, record.last_page) == (
        "12",
        "3",
        "101",
        "119",
    )
    assert record.oa_status == "green"
    assert record.oa_url == "https://repo.example/x.pdf"


@pytest.mark.parametrize(
    "biblio",
    [
        {"volume": {"x": 1}, "issue": ["1"], "first_page": True, "last_page": "9" * 1000},
        "not an object",
        None,
    ],
)
def test_odd_biblio_values_are_dropped_or_cut(biblio):
    record = map_work(_payload(biblio=biblio))
    assert record.volume == record.issue == record.first_page == ""
    assert len(record.last_page) <= 50


def test_an_unknown_oa_status_and_a_script_copy_are_not_kept():
    record = map_work(
        _payload(
            open_access={"is_oa": True, "oa_status": "<b>platinum</b>", "oa_url": "javascript:x"},
        )
    )
    assert record.oa_status == ""
    assert record.oa_url == ""
    assert "oa_url" in record.dropped


def test_a_local_openalex_id_is_never_offered_as_the_same_record(client):
    author = AuthorFactory(display_name="Demo Person", openalex_id="A9000000001")
    (person,) = structured(client.get(author.get_absolute_url()))["json-ld"]
    assert "sameAs" not in person
    work = WorkFactory(openalex_id="W9000000001")
    (article,) = structured(client.get(work.get_absolute_url()))["json-ld"]
    assert "https://openalex.org/W9000000001" not in article.get("sameAs", [])

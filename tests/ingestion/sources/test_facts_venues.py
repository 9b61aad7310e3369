"""Entry types follow where a work appeared: a conference, a journal, a repository or a
book series; a corporate author stays one name. Read back by pybtex, rispy and citeproc-py."""

import pytest
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as citeproc_formatter
from citeproc.source.json import CiteProcJSON
from django.core.management import call_command
from pybtex.database import parse_string as pybtex_parse

from catalogue.models import Work
from exports import work as exports
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory
from tests.pages.test_metadata import head_of, structured

pytestmark = pytest.mark.django_db

AUTHOR_WORKS = "works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json"
CITED_BY = (
    "works__filter-cited_by-W3046863325-W3045921891__cursor-first-page__per-page-200__2025-11.json"
)
PAPERQA = "works__filter-title.search-PaperQA-Retrieval-Augmented-Generative-Agent__2025-09.json"


@pytest.fixture
def recorded(real_fixtures):
    for name in (AUTHOR_WORKS, CITED_BY, PAPERQA):
        call_command("import_file", str(real_fixtures / "openalex" / name), verbosity=0)
    return lambda openalex_id: Work.objects.select_related("venue").get(openalex_id=openalex_id)


def _bibtex(client, work: Work):
    text = client.get(f"/works/{work.pk}/export.bib").content.decode()
    (entry,) = pybtex_parse(text, "bibtex").entries.values()
    return entry


def _ris(client, work: Work) -> dict:
    (entry,) = rispy.loads(client.get(f"/works/{work.pk}/export.ris").content.decode())
    return entry


def _cited(item: dict) -> str:
    bibliography = CitationStylesBibliography(
        CitationStylesStyle("harvard-cite-them-right", validate=False),
        CiteProcJSON([item]),
        citeproc_formatter.plain,
    )
    bibliography.register(Citation([CitationItem(item["id"].lower())]))
    (text,) = [str(entry) for entry in bibliography.bibliography()]
    return text


def test_a_conference_paper_is_inproceedings_cpaper_and_paper_conference(client, recorded):
    paper = recorded("W2760813866")  # IEEE Visualization, a conference at OpenAlex
    assert paper.venue.type == "conference"
    entry = _bibtex(client, paper)
    assert entry.type == "inproceedings"
    assert entry.fields["booktitle"] == "IEEE Visualization"
    assert "journal" not in entry.fields
    ris = _ris(client, paper)
    assert (ris["type_of_reference"], ris["secondary_title"]) == ("CPAPER", "IEEE Visualization")
    csl = exports.to_csl(paper)
    assert (csl["type"], csl["container-title"]) == ("paper-conference", "IEEE Visualization")
    meta = head_of(client.get(paper.get_absolute_url())).meta
    assert meta["citation_conference_title"] == ["IEEE Visualization"]
    assert "citation_journal_title" not in meta


def test_an_article_held_in_a_repository_does_not_name_it_as_a_journal(client, recorded):
    word2vec = recorded("W2153579005")  # an "article" whose only venue is arXiv
    assert word2vec.venue.type == "repository"
    entry = _bibtex(client, word2vec)
    assert entry.type == "misc"
    assert entry.fields["eprint"] == "1310.4546"
    assert not {"journal", "howpublished"} & set(entry.fields)
    ris = _ris(client, word2vec)
    assert ris["type_of_reference"] == "UNPB"
    assert "secondary_title" not in ris and "journal_name" not in ris
    csl = exports.to_csl(word2vec)
    assert "container-title" not in csl
    meta = head_of(client.get(word2vec.get_absolute_url())).meta
    assert "citation_journal_title" not in meta
    # A repository that is not arXiv is named where the work is held, not as its journal.
    corpora = recorded("W1500530942")  # Open Research Online
    entry = _bibtex(client, corpora)
    assert entry.type == "misc"
    assert entry.fields["howpublished"] == "Open Research Online (The Open University)"
    ris = _ris(client, corpora)
    assert ris["type_of_reference"] == "GEN" and "secondary_title" not in ris


def test_a_preprint_cites_arxiv_once_and_never_as_its_container(client, recorded):
    paperqa = recorded("W4389761608")
    csl = exports.to_csl(paperqa)
    assert csl["type"] == "article"
    assert "container-title" not in csl
    assert csl["publisher"] == "arXiv"
    cited = _cited(csl)
    assert "arXiv (Cornell University)" not in cited
    assert "In arXiv" not in cited and "arXiv. arXiv" not in cited
    meta = head_of(client.get(paperqa.get_absolute_url())).meta
    assert "citation_journal_title" not in meta and meta["citation_arxiv_id"] == ["2312.07559"]


def test_a_book_has_no_howpublished_and_its_series_is_a_series(client):
    series = VenueFactory(name="Lecture Notes in Tests", type="book series", publisher="Springer")
    book = WorkFactory(title="A whole book", type=Work.Type.BOOK, venue=series)
    AuthorshipFactory(work=book, author=AuthorFactory(display_name="Ada Lovelace"))
    entry = _bibtex(client, book)
    assert entry.type == "book"
    assert "howpublished" not in entry.fields
    assert (entry.fields["series"], entry.fields["publisher"]) == (
        "Lecture Notes in Tests",
        "Springer",
    )
    ris = _ris(client, book)
    assert ris["type_of_reference"] == "BOOK" and "secondary_title" not in ris
    assert ris["tertiary_title"] == "Lecture Notes in Tests"
    csl = exports.to_csl(book)
    assert csl["collection-title"] == "Lecture Notes in Tests" and "container-title" not in csl
    platform = VenueFactory(name="SpringerLink eBooks", type="ebook platform")
    book.venue = platform
    book.save()
    # A platform is no publisher, which @book requires: the entry says what it is in @misc.
    entry = _bibtex(client, book)
    assert (entry.type, entry.fields["type"]) == ("misc", "Book")
    assert "series" not in entry.fields


@pytest.mark.parametrize(
    "name",
    [
        "World Bank",
        "The Supernova Cosmology Project",
        "ATLAS Collaboration",
        "World Health Organization",
        "OECD",
    ],
)
def test_a_corporate_author_is_never_split_into_family_and_given_names(client, name):
    work = WorkFactory(title="Global outlook", venue=VenueFactory(name="Reports"))
    AuthorshipFactory(work=work, author=AuthorFactory(display_name=name))
    (person,) = _bibtex(client, work).persons["author"]
    assert not person.first_names and not person.middle_names
    assert " ".join(person.last_names).strip("{}") == name
    assert _ris(client, work)["authors"] == [name]
    assert exports.to_csl(work)["author"] == [{"literal": name}]
    (article,) = structured(client.get(work.get_absolute_url()))["json-ld"]
    assert article["author"][0]["@type"] == "Organization"


def test_a_person_is_still_split(client):
    work = WorkFactory(title="Banking on it", venue=VenueFactory(name="Journal of Banks"))
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Grace Bank Hopper"))
    (person,) = _bibtex(client, work).persons["author"]
    names = (person.first_names + person.middle_names, person.last_names)
    assert names == (["Grace", "Bank"], ["Hopper"])

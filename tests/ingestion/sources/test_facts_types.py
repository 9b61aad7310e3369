"""Every type a source gives a work is kept, shown with its own label, and exported
with the nearest type each format has (read back by bibtexparser, rispy and citeproc-py)."""

import json

import pytest
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as citeproc_formatter
from citeproc.source.json import CiteProcJSON

from catalogue.models import Work
from exports import work as exports
from ingestion.sources.openalex.mapping import map_work, work_type
from search.works import SearchForm
from tests.exports.bibtex import read_bibtex
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file
from tests.ingestion.sources.openalex_recordings import (
    cassette_body,
    cited_by_results,
    snapshot_lines,
)

pytestmark = pytest.mark.django_db

JOURNAL = {
    "source": {
        "id": "https://openalex.org/S1",
        "display_name": "Journal of Tests",
        "type": "journal",
        "host_organization_name": "Test Press",
    }
}

# OpenAlex's types that were once read as another (the rest are in test_exports), their
# labels, then the nearest BibTeX, RIS and CSL types.
NEAREST = [
    ("book-review", "Book review", "article", "JOUR", "review-book"),
    ("editorial", "Editorial", "article", "JOUR", "article-journal"),
    ("erratum", "Erratum", "article", "JOUR", "article-journal"),
    ("grant", "Grant", "misc", "GRANT", "document"),
    ("letter", "Letter", "article", "JOUR", "article-journal"),
    ("libguides", "Library guide", "misc", "ELEC", "webpage"),
    ("paratext", "Paratext", "misc", "GEN", "document"),
    ("peer-review", "Peer review", "misc", "GEN", "review"),
    # @incollection wants editors and @inbook pages, which the record lacks.
    ("reference-entry", "Reference entry", "misc", "ENCYC", "entry-encyclopedia"),
    ("report", "Report", "techreport", "RPRT", "report"),
    ("retraction", "Retraction", "article", "JOUR", "article-journal"),
    ("standard", "Standard", "misc", "STAND", "standard"),
    ("supplementary-materials", "Supplementary materials", "misc", "GEN", "document"),
]


def _imported(tmp_path, number: int, kind: str) -> Work:
    payload = openalex_work(
        number,
        f"A work of type {kind}",
        type=kind,
        doi=f"https://doi.org/10.1000/type.{number}",
        primary_location=JOURNAL,
    )
    run_file(tmp_path, openalex_page(payload))
    return Work.objects.get(openalex_id=f"W{number}")


def _download(client, work: Work, extension: str) -> str:
    return client.get(f"/works/{work.pk}/export.{extension}").content.decode()


@pytest.mark.parametrize(("kind", "label", "bibtex", "ris", "csl"), NEAREST)
def test_each_openalex_type_is_kept_shown_and_exported_as_its_nearest_type(
    client, tmp_path, kind, label, bibtex, ris, csl
):
    work = _imported(tmp_path, 100 + NEAREST.index((kind, label, bibtex, ris, csl)), kind)
    assert work.type == kind
    assert work.get_type_display() == label
    page = client.get(work.get_absolute_url()).content.decode()
    assert f'<span class="tag">{label}</span>' in page
    (entry,) = read_bibtex(_download(client, work, "bib"))
    assert entry["ENTRYTYPE"] == bibtex
    (record,) = rispy.loads(_download(client, work, "ris"))
    assert record["type_of_reference"] == ris
    item = exports.to_csl(work)
    assert item["type"] == csl
    # citeproc-py reads the item and cites it.
    bibliography = CitationStylesBibliography(
        CitationStylesStyle("harvard-cite-them-right", validate=False),
        CiteProcJSON([item]),
        citeproc_formatter.plain,
    )
    bibliography.register(Citation([CitationItem(item["id"].lower())]))
    (rendered,) = [str(text) for text in bibliography.bibliography()]
    assert f"A work of type {kind}" in rendered


def test_the_real_records_keep_the_types_openalex_gives(real_fixtures):
    payloads = [*cited_by_results(real_fixtures).values()]
    payloads.append(json.loads(cassette_body(real_fixtures, "openalexPro__api_call_200.yml")))
    given = {payload["id"]: payload["type"] for payload in payloads}
    assert {work_id: work_type(kind) for work_id, kind in given.items()} == given
    assert given["https://openalex.org/W4234567890"] == "paratext"
    titled = [payload for payload in payloads if payload.get("title")]
    assert all(map_work(payload).type == payload["type"] for payload in titled)
    # The legacy snapshot's Crossref words become OpenAlex's.
    found = {line["type"]: map_work(line).type for line in snapshot_lines(real_fixtures)}
    assert found == {"journal-article": "article", "book": "book", "book-chapter": "book-chapter"}


@pytest.mark.parametrize(
    ("given", "kept"),
    [("report-series", "report"), ("report-component", "report"), ("book-set", "book")],
)
def test_other_crossref_words_take_the_nearest_openalex_type(given, kept):
    payload = openalex_work(1, "A work", type=given)
    assert map_work(payload).type == kept


def test_search_offers_every_type_by_its_label(tmp_path):
    for number, kind in enumerate(("erratum", "peer-review", "letter")):
        _imported(tmp_path, 200 + number, kind)
    form = SearchForm(data={"q": "", "type": "peer-review"})
    assert form.is_valid(), form.errors
    assert dict(form.fields["type"].choices)["peer-review"] == "Peer review"


def test_a_letter_is_not_counted_as_an_article(client, tmp_path):
    letter = _imported(tmp_path, 300, "letter")
    article = _imported(tmp_path, 301, "article")
    assert Work.objects.filter(type="article").get() == article
    assert json.loads(client.get(f"/api/v1/works/{letter.pk}/").content)["type"] == "letter"

"""A work's date keeps the precision its source gives (a year, a month or a day) on
every page, meta tag and export; arXiv's journal reference dates the version of record."""

import re
from datetime import UTC, date, datetime

import pytest
import rispy
from django.core.management import call_command

from catalogue.models import Work
from catalogue.selectors import work_page
from exports import work as exports
from ingestion.sources.arxiv import mapping as arxiv_mapping
from ingestion.sources.arxiv.feed import parse_feed
from ingestion.sources.openalex.mapping import map_work
from tests.exports.bibtex import read_bibtex
from tests.factories import WorkFactory
from tests.ingestion.sources.facts import (
    arxiv_entry,
    arxiv_feed,
    openalex_page,
    openalex_work,
    run_file,
)
from tests.ingestion.sources.openalex_recordings import cited_by_results, load, snapshot_lines
from tests.pages.test_metadata import head_of, structured

pytestmark = pytest.mark.django_db

PAPERQA = "works__filter-title.search-PaperQA-Retrieval-Augmented-Generative-Agent__2025-09.json"
CITED_BY = (
    "works__filter-cited_by-W3046863325-W3045921891__cursor-first-page__per-page-200__2025-11.json"
)


def _import(real_fixtures, *parts: str) -> None:
    call_command("import_file", str(real_fixtures.joinpath(*parts)), verbosity=0)


def _exports(client, work: Work) -> tuple[dict, dict, dict]:
    bib = client.get(f"/works/{work.pk}/export.bib").content.decode()
    (entry,) = read_bibtex(bib)
    (ris,) = rispy.loads(client.get(f"/works/{work.pk}/export.ris").content.decode())
    return entry, ris, exports.to_csl(work)


def _details(client, work: Work) -> str:
    html = client.get(work.get_absolute_url()).content.decode()
    facts = re.search(r'<dl class="fact-list">.*?</dl>', html, re.S).group(0)
    return " ".join(re.sub(r"<[^>]+>", " ", facts).split())


# OpenAlex's whole dates ---------------------------------------------------------------


def test_every_recorded_1_january_is_a_year_and_every_other_first_a_month(real_fixtures):
    payloads = [*cited_by_results(real_fixtures).values(), *snapshot_lines(real_fixtures)]
    payloads.append(load(real_fixtures, PAPERQA)["results"][0])
    for payload in [payload for payload in payloads if payload.get("title")]:
        record = map_work(payload)
        day = record.publication_date
        expected = "year" if (day.month, day.day) == (1, 1) else "month" if day.day == 1 else "day"
        assert record.date_precision == expected, (payload["id"], day)


def test_a_year_only_date_is_a_year_in_every_export_tag_and_page(client, real_fixtures):
    _import(real_fixtures, "openalex", PAPERQA)
    work = Work.objects.get(openalex_id="W4389761608")
    assert (work.publication_date_precision, work.publication_year) == ("year", 2023)
    bibtex, ris, csl = _exports(client, work)
    assert bibtex["year"] == "2023" and "month" not in bibtex
    assert ris["year"] == "2023" and ris["date"] == "2023///"
    assert csl["issued"] == {"date-parts": [[2023]]}
    response = client.get(work.get_absolute_url())
    assert head_of(response).meta["citation_publication_date"] == ["2023"]
    (article,) = structured(response)["json-ld"]
    assert article["datePublished"] == "2023"
    assert "Jan 2023" not in response.content.decode()
    assert "Published 2023 from OpenAlex" in _details(client, work)
    api = client.get(f"/api/v1/works/{work.pk}/").json()
    assert (api["publication_date_precision"], api["publication_year"]) == ("year", 2023)


def test_a_year_and_month_date_is_a_month_everywhere(client, real_fixtures):
    _import(real_fixtures, "openalex", CITED_BY)
    textrank = Work.objects.get(openalex_id="W1525595230")  # 2004-07-01 at OpenAlex
    assert textrank.publication_date_precision == "month"
    bibtex, ris, csl = _exports(client, textrank)
    assert (bibtex["year"], bibtex["month"]) == ("2004", "July")
    assert ris["date"] == "2004/07//"
    assert csl["issued"] == {"date-parts": [[2004, 7]]}
    response = client.get(textrank.get_absolute_url())
    assert head_of(response).meta["citation_publication_date"] == ["2004/07"]
    assert structured(response)["json-ld"][0]["datePublished"] == "2004-07"
    assert "Published Jul 2004" in _details(client, textrank)
    # The researcher's list writes the date as precisely.
    author = textrank.authors.first()
    listing = client.get(author.get_absolute_url()).content.decode()
    assert "1 Jul 2004" not in listing and "Jul 2004" in listing
    # A whole date keeps its day.
    _import(real_fixtures, "openalex", "works__W2741809807__2025-06.json")
    peerj = Work.objects.get(openalex_id="W2741809807")
    bibtex, ris, csl = _exports(client, peerj)
    assert (bibtex["month"], ris["date"]) == ("February", "2018/02/13/")
    assert csl["issued"] == {"date-parts": [[2018, 2, 13]]}


def test_arxiv_s_day_beats_the_year_openalex_gives_the_same_preprint(tmp_path, real_fixtures):
    _import(real_fixtures, "openalex", PAPERQA)
    entry = arxiv_entry("2312.07559", "PaperQA: Retrieval-Augmented Generative Agent", "2023-12-14")
    run_file(tmp_path, arxiv_feed(entry), ".atom")
    work = Work.objects.get(arxiv_id="2312.07559")
    assert (work.publication_date, work.publication_date_precision) == (date(2023, 12, 14), "day")


# arXiv's journal reference ------------------------------------------------------------


@pytest.mark.parametrize(
    ("journal_ref", "year"),
    [
        ("J. Algebraic Combin. 6 (1997)", 1997),
        ("Phys. Rev. B 85, 115117 (2012)", 2012),
        ("Astrophys.J.517:565-586,1999", 1999),
        ("Phys.Lett.B573:94-100,2003", 2003),
        ("IEEE Transactions on Information Theory ( Volume: 65 , Issue: 4 , April 2019 )", 2019),
        ("Proc. 2023 IEEE International Conference on Software Testing, pp. 66-69", 2023),
        ("Software Testing, Verification and Reliability, 35(2):e1914, 2025", 2025),
        ("Formal Methods and Testing, Springer-Verlag (Ed.) (2008) 209-239", 2008),
        ("Int. J. Mod. Phys. B, 26, 1244002 (2012)", 2012),
        ("Nature 521, 436-444", None),
        ("Proceedings, pages 1995-2001", None),
    ],
)
def test_the_year_a_journal_reference_names(journal_ref, year):
    assert arxiv_mapping.journal_year(journal_ref) == year


def test_a_recorded_journal_reference_dates_the_work_and_v1_is_its_created_date(
    client, real_fixtures
):
    _import(real_fixtures, "arxiv", "legacy-2016", "query__id_list-1111.2011v2__2016-10.atom.xml")
    work = Work.objects.get(arxiv_id="1111.2011")
    assert (work.publication_year, work.publication_date_precision) == (2012, "year")
    assert work.provenance["date_version"] == "record"
    assert work.source_created_date == date(2011, 11, 8)
    details = _details(client, work)
    assert "Published 2012 from arXiv" in details
    assert details.index("Created 8 Nov 2011 from arXiv") < details.index(
        "Updated 2 Apr 2012 from arXiv"
    )
    bibtex, ris, csl = _exports(client, work)
    assert (bibtex["year"], "month" in bibtex, ris["date"]) == ("2012", False, "2012///")


def test_the_version_of_record_at_openalex_beats_the_journal_reference_year(tmp_path):
    entry = arxiv_entry(
        "9701.00001", "Shellability", "1996-05-02", journal_ref="J. Algebraic Combin. 6 (1997)"
    )
    journal = openalex_work(
        31,
        "Shellability",
        doi="https://doi.org/10.1000/jac.31",
        publication_date="1997-03-18",
        publication_year=1997,
        locations=[{"landing_page_url": "https://arxiv.org/abs/9701.00001"}],
    )
    for steps in ([entry, journal], [journal, entry]):
        Work.objects.all().delete()
        for step in steps:
            if step is entry:
                run_file(tmp_path, arxiv_feed(entry), ".atom")
            else:
                run_file(tmp_path, openalex_page(journal))
        work = Work.objects.get(arxiv_id="9701.00001")
        assert (work.publication_date, work.publication_date_precision) == (
            date(1997, 3, 18),
            "day",
        )


def test_an_entry_without_a_journal_year_keeps_its_first_version_s_day(real_fixtures):
    payload = parse_feed(
        (real_fixtures / "arxiv" / "query__id_list-1605.08386__2026-04.atom.xml").read_bytes()
    ).entries[0]
    record = arxiv_mapping.map_entry(payload)
    assert (record.journal_year, record.date_precision) == (None, "day")
    assert record.created_date == date(2016, 5, 26)


# Created and updated on the work page -------------------------------------------------


def test_created_and_updated_come_from_one_source_in_order(client, tmp_path):
    later_at_openalex = openalex_work(
        32,
        "Revised twice",
        type="preprint",
        doi="https://doi.org/10.48550/arxiv.2301.00032",
        publication_date="2023-01-02",
        created_date="2024-05-01",
        updated_date="2025-02-03T00:00:00",
    )
    run_file(tmp_path, openalex_page(later_at_openalex))
    entry = arxiv_entry("2301.00032", "Revised twice", "2023-01-02", updated="2023-06-01")
    run_file(tmp_path, arxiv_feed(entry), ".atom")
    work = Work.objects.get(arxiv_id="2301.00032")
    details = _details(client, work)
    assert "Created 2 Jan 2023 from arXiv" in details
    assert details.index("Created") < details.index("Updated 1 Jun 2023 from arXiv")
    assert "2024" not in details and "2025" not in details


def test_an_update_earlier_than_the_creation_is_not_shown(client):
    work = WorkFactory(
        source_created_date=date(2024, 5, 1),
        source_updated_at=datetime(2023, 6, 1, tzinfo=UTC),
        provenance={"source_created_date": "openalex", "source_updated_at": "arxiv"},
    )
    page = work_page(work, today=date(2026, 1, 1))
    assert [label for label, _, _ in page.dates] == ["Published", "Created"]

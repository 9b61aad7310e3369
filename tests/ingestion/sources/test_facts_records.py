"""What an imported work says: its type, its date, its text and its code link."""

import pytest

from catalogue.models import Author, Work
from tests.ingestion.sources.facts import (
    arxiv_entry,
    arxiv_feed,
    inverted,
    openalex_page,
    openalex_work,
    run_file,
)

pytestmark = pytest.mark.django_db


def import_arxiv(tmp_path, *entries):
    return run_file(tmp_path, arxiv_feed(*entries), ".atom")


def import_openalex(tmp_path, *works):
    return run_file(tmp_path, openalex_page(*works))


# Types ------------------------------------------------------------------------------


def test_an_arxiv_only_work_is_a_preprint_and_stays_one_when_imported_again(tmp_path):
    for _ in range(2):
        import_arxiv(tmp_path, arxiv_entry("2401.00001", "Only on arXiv", "2024-01-02"))
        work = Work.objects.get(arxiv_id="2401.00001")
        assert work.type == Work.Type.PREPRINT
        assert work.provenance["type"] == "arxiv"


def test_the_published_version_gives_its_type_to_an_arxiv_work(tmp_path):
    import_arxiv(tmp_path, arxiv_entry("2401.00002", "Later in a journal", "2024-01-02"))
    published = openalex_work(
        2,
        "Later in a journal",
        type="article",
        doi="https://doi.org/10.1000/journal.2",
        publication_date="2024-05-01",
        publication_year=2024,
        locations=[{"landing_page_url": "https://arxiv.org/abs/2401.00002"}],
    )
    import_openalex(tmp_path, published)
    work = Work.objects.get(arxiv_id="2401.00002")
    assert work.type == Work.Type.ARTICLE
    import_arxiv(tmp_path, arxiv_entry("2401.00002", "Later in a journal", "2024-01-02"))
    assert Work.objects.get(pk=work.pk).type == Work.Type.ARTICLE


def test_a_preprint_arriving_after_its_published_version_keeps_the_published_type(tmp_path):
    published = openalex_work(
        3,
        "First in a journal",
        type="article",  # the value a new work's type holds by default
        doi="https://doi.org/10.1000/journal.3",
        locations=[{"landing_page_url": "https://arxiv.org/abs/2401.00003"}],
    )
    import_openalex(tmp_path, published)
    import_arxiv(tmp_path, arxiv_entry("2401.00003", "First in a journal", "2024-01-02"))
    work = Work.objects.get(arxiv_id="2401.00003")
    assert (work.type, work.provenance["type"]) == (Work.Type.ARTICLE, "openalex")


# One date rule ------------------------------------------------------------------------

PREPRINT_RECORD = {
    "type": "preprint",
    "doi": "https://doi.org/10.48550/arxiv.2103.03239",
    "publication_date": None,
    "publication_year": 2022,
    "primary_location": {"landing_page_url": "https://arxiv.org/abs/2103.03239"},
}


@pytest.mark.parametrize("arxiv_first", [True, False])
def test_without_a_version_of_record_the_first_version_dates_the_work(tmp_path, arxiv_first):
    entry = arxiv_entry("2103.03239", "Moshpit-like training", "2021-03-04")
    openalex = openalex_work(9, "Moshpit-like training", **PREPRINT_RECORD)
    steps = [lambda: import_arxiv(tmp_path, entry), lambda: import_openalex(tmp_path, openalex)]
    for step in steps if arxiv_first else steps[::-1]:
        step()
    for step in steps:  # imported twice, in either order
        step()
    work = Work.objects.get(arxiv_id="2103.03239")
    assert (str(work.publication_date), work.publication_year) == ("2021-03-04", 2021)


@pytest.mark.parametrize("arxiv_first", [True, False])
def test_the_version_of_record_dates_the_work_over_its_preprint(tmp_path, arxiv_first):
    entry = arxiv_entry("2301.00003", "Published later", "2023-01-02")
    journal = openalex_work(
        3,
        "Published later",
        doi="https://doi.org/10.1000/j.3",
        publication_date="2024-02-03",
        publication_year=2024,
        locations=[{"landing_page_url": "https://arxiv.org/abs/2301.00003"}],
    )
    steps = [lambda: import_arxiv(tmp_path, entry), lambda: import_openalex(tmp_path, journal)]
    for step in (steps if arxiv_first else steps[::-1]) * 2:
        step()
    work = Work.objects.get(arxiv_id="2301.00003")
    assert (str(work.publication_date), work.publication_year) == ("2024-02-03", 2024)
    assert work.provenance["publication_date"] == "openalex"


def test_a_year_always_agrees_with_its_date(tmp_path):
    disagreeing = openalex_work(
        4, "Odd record", publication_date="2019-12-30", publication_year=2020
    )
    import_openalex(tmp_path, disagreeing)
    work = Work.objects.get(openalex_id="W4")
    assert work.publication_year == work.publication_date.year == 2019


def test_pages_exports_feeds_and_the_api_give_one_date(tmp_path, client):
    import_openalex(tmp_path, openalex_work(9, "Moshpit-like training", **PREPRINT_RECORD))
    import_arxiv(tmp_path, arxiv_entry("2103.03239", "Moshpit-like training", "2021-03-04"))
    work = Work.objects.get(arxiv_id="2103.03239")
    author = work.authors.get()
    page = client.get(work.get_absolute_url()).content.decode()
    assert "4 Mar 2021" in page and "2022" not in page
    listing = client.get(author.get_absolute_url()).content.decode()
    assert "2021" in listing and "2022" not in listing
    bibtex = client.get(f"/works/{work.pk}/export.bib").content.decode()
    assert "year = {2021}" in bibtex or "year={2021}" in bibtex.replace(" ", "")
    api = client.get(f"/api/v1/works/{work.pk}/").json()
    assert (api["publication_date"], api["publication_year"]) == ("2021-03-04", 2021)
    feed = client.get(f"/researchers/{author.pk}/feed.atom").content.decode()
    assert "<published>2021-03-04T" in feed


# Clean text ---------------------------------------------------------------------------


def test_mojibake_is_repaired_in_names_titles_and_abstracts_and_slugs_follow(tmp_path):
    work = openalex_work(
        5,
        "Ãœber die GrÃ¶ÃŸe von Graphen",
        abstract_inverted_index=inverted("Wir zeigen, dass GrÃ¶ÃŸe zÃ¤hlt."),
        authorships=[
            {
                "author": {
                    "id": "https://openalex.org/A55",
                    "display_name": "SÃ³lrÃºn EinarsdÃ³ttir",
                },
                "raw_author_name": "SÃ³lrÃºn EinarsdÃ³ttir",
                "institutions": [],
            }
        ],
    )
    import_openalex(tmp_path, work)
    stored = Work.objects.get(openalex_id="W5")
    assert stored.title == "Über die Größe von Graphen"
    assert stored.abstract == "Wir zeigen, dass Größe zählt."
    author = Author.objects.get(openalex_id="A55")
    assert author.display_name == "Sólrún Einarsdóttir"
    assert author.slug == "solrun-einarsdottir"
    assert stored.authorships.get().raw_name == "Sólrún Einarsdóttir"


def test_real_accents_and_quotes_are_left_alone(tmp_path):
    import_openalex(tmp_path, openalex_work(6, "Naïve “café” models — ﬁne"))
    assert Work.objects.get(openalex_id="W6").title == "Naïve “café” models — ﬁne"


@pytest.mark.parametrize(
    ("abstract", "kept"),
    [
        ("Abstract We present a method.", "We present a method."),
        ("ABSTRACT: We present a method.", "We present a method."),
        ("Abstract. We present a method.", "We present a method."),
        ("Abstract interpretation is sound.", "Abstract interpretation is sound."),
        (
            "We use cookies to help provide and enhance our service and tailor content. "
            "By continuing you agree to the use of cookies. We present a method.",
            "We present a method.",
        ),
        (
            "We present a method. © 2021 Elsevier Ltd. All rights reserved.",
            "We present a method.",
        ),
        (
            "Websites use cookies to track visitors. We measure how.",
            "Websites use cookies to track visitors. We measure how.",
        ),
    ],
)
def test_abstracts_lose_their_label_and_site_boilerplate(tmp_path, abstract, kept):
    import_openalex(
        tmp_path, openalex_work(7, "A work", abstract_inverted_index=inverted(abstract))
    )
    assert Work.objects.get(openalex_id="W7").abstract == kept
    import_arxiv(
        tmp_path, arxiv_entry("2402.00007", "Another work", "2024-02-01", summary=abstract)
    )
    assert Work.objects.get(arxiv_id="2402.00007").abstract == kept


def test_entities_are_decoded_once(tmp_path, client):
    import_openalex(tmp_path, openalex_work(8, "Fast &amp; sound: R&amp;amp;D &lt;tools&gt;"))
    work = Work.objects.get(openalex_id="W8")
    assert work.title == "Fast & sound: R&amp;D <tools>"
    page = client.get(work.get_absolute_url()).content.decode()
    assert "R&amp;amp;D" in page  # shown as the record says it, not decoded a second time
    assert client.get(f"/api/v1/works/{work.pk}/").json()["title"] == work.title


# Code links ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Code: https://gitlab.com/group/tool.", "https://gitlab.com/group/tool"),
        ("See bitbucket.org/team/repo for the code", "https://bitbucket.org/team/repo"),
        ("Our tool lives at https://codeberg.org/me/tool;", "https://codeberg.org/me/tool"),
        (
            "Archived as swh:1:rev:0123456789abcdef0123456789abcdef01234567.",
            "https://archive.softwareheritage.org/swh:1:rev:0123456789abcdef0123456789abcdef01234567",
        ),
        (
            "The software is on Zenodo: https://doi.org/10.5281/zenodo.42.",
            "https://doi.org/10.5281/zenodo.42",
        ),
        ("The survey data are at https://zenodo.org/records/42.", ""),
        ("Project page: https://me.github.io/tool.", ""),
    ],
)
def test_code_links_are_found_in_openalex_abstracts(tmp_path, text, found):
    import_openalex(tmp_path, openalex_work(10, "Tooling", abstract_inverted_index=inverted(text)))
    assert Work.objects.get(openalex_id="W10").code_url == found


def test_a_code_link_is_found_among_openalex_locations(tmp_path):
    work = openalex_work(
        11,
        "With a repository",
        locations=[
            {"landing_page_url": "https://doi.org/10.1000/x.11"},
            {"landing_page_url": "https://github.com/lab/tool"},
        ],
    )
    import_openalex(tmp_path, work)
    assert Work.objects.get(openalex_id="W11").code_url == "https://github.com/lab/tool"


def test_a_zenodo_location_is_code_only_for_software(tmp_path):
    location = {"landing_page_url": "https://zenodo.org/records/77"}
    import_openalex(tmp_path, openalex_work(12, "A paper", locations=[location]))
    assert Work.objects.get(openalex_id="W12").code_url == ""
    software = openalex_work(13, "A tool", type="software", locations=[location])
    import_openalex(tmp_path, software)
    assert Work.objects.get(openalex_id="W13").code_url == "https://zenodo.org/records/77"


def test_arxiv_comments_name_software_heritage_and_zenodo(tmp_path):
    comment = "12 pages; code: https://zenodo.org/records/99"
    import_arxiv(tmp_path, arxiv_entry("2403.00012", "Zenodo", "2024-03-01", comment=comment))
    assert Work.objects.get(arxiv_id="2403.00012").code_url == "https://zenodo.org/records/99"


# Rows written before these rules ------------------------------------------------------


def test_the_migration_brings_older_rows_under_the_rules():
    from datetime import date
    from importlib import import_module

    from django.apps import apps

    from tests.factories import WorkFactory

    migration = import_module("catalogue.migrations.0017_records_follow_type_and_date_rules")
    arxiv_only = WorkFactory(arxiv_id="2101.00001", openalex_id=None, type="article", provenance={})
    typed = WorkFactory(
        arxiv_id="2101.00002", openalex_id=None, type="article", provenance={"type": "staff"}
    )
    moshpit = WorkFactory(
        type="preprint",
        publication_date=date(2021, 3, 4),
        publication_year=2022,
        provenance={"publication_date": "arxiv", "publication_year": "openalex"},
    )
    published = WorkFactory(
        type="article",
        publication_date=date(2021, 3, 4),
        publication_year=2022,
        provenance={"publication_date": "arxiv", "publication_year": "openalex"},
    )
    migration.arxiv_only_are_preprints(apps, None)
    migration.years_follow_dates(apps, None)
    assert Work.objects.get(pk=arxiv_only.pk).type == "preprint"
    assert Work.objects.get(pk=typed.pk).type == "article"
    fixed = Work.objects.get(pk=moshpit.pk)
    assert (fixed.publication_date, fixed.publication_year) == (date(2021, 3, 4), 2021)
    of_record = Work.objects.get(pk=published.pk)
    assert (of_record.publication_date, of_record.publication_year) == (None, 2022)

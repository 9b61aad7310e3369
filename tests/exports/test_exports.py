"""BibTeX and RIS downloads of a work: content types, file names, escaping."""

import re
from datetime import date

import pytest

from catalogue.models import Topic, Work, WorkTopic
from exports import work as exports
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def work():
    venue = VenueFactory(name="Journal of Odd & Even_Numbers", publisher="Q# Press")
    work = WorkFactory(
        title="50% of {braces} cost $1024\\times$ more: a_b ~ c^d #1 & friends",
        abstract="Line one with $\\alpha < \\beta$.\n\nSecond paragraph\twith a tab.",
        type=Work.Type.ARTICLE,
        venue=venue,
        publication_date=date(2022, 2, 28),
        publication_year=2022,
        doi="10.1145/3503222.3507778",
        arxiv_id="2105.05720",
        arxiv_primary_category="cs.DC",
        comments="12 pages\nICSE 2022",
        pdf_url="https://example.org/paper.pdf",
        language="en",
    )
    names = ["Abhinav Jangda", "Ludwig van Beethoven", "Barnes and Noble", "Plato", "Curie, Marie"]
    for position, name in enumerate(names):
        AuthorshipFactory(work=work, author=AuthorFactory(display_name=name), position=position)
    topic = Topic.objects.create(key="openalex:T9", name="Distributed computing", kind="topic")
    WorkTopic.objects.create(work=work, topic=topic, source="openalex")
    return work


def braces_balance(text: str) -> bool:
    depth = 0
    for index, char in enumerate(text):
        if char in "{}" and index and text[index - 1] == "\\":
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_bibtex_download_has_its_content_type_and_a_file_name(client, work):
    response = client.get(f"/works/{work.pk}/export.bib")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-bibtex; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment; filename=")
    assert re.search(r'filename="[\w-]+-\d+\.bib"$', disposition)


def test_bibtex_escapes_every_tex_special_character(client, work):
    # A title from OpenAlex is plain text: every character TeX reads as a command is escaped.
    work.title = "50% of {braces} cost $1024 more: a_b ~ c^d #1 & friends \\ back"
    work.provenance = {"title": "openalex"}
    work.save()
    text = client.get(f"/works/{work.pk}/export.bib").content.decode()
    assert text.startswith("@article{jangda202250,\n")
    assert (
        "  title = {{50{\\%} of {\\textbraceleft}braces{\\textbraceright} cost {\\$}1024 more: a{\\_}b "
        "{\\textasciitilde} c{\\textasciicircum}d {\\#}1 {\\&} friends {\\textbackslash} back}},"
    ) in text
    assert "  journal = {Journal of Odd {\\&} Even{\\_}Numbers}," in text
    assert braces_balance(text)
    # Every field sits on one line: a stray newline or tab would break some readers.
    assert "\t" not in text
    assert all(
        re.match(r"^(@article\{.*,|  [a-zA-Z]+ = (\{.*\}|[a-z]{3}),?|\})$", line)
        for line in text.splitlines()
    )


def test_arxiv_latex_in_a_title_becomes_text_and_then_latex_that_prints_it(work):
    work.title = r"Search for $B^0_s \to \mu^+\mu^-$ with $\alpha$-decay in {\"o}sterreich"
    work.provenance = {"title": "arxiv"}
    assert exports.title_text(work) == "Search for B^0_s →μ^+μ^- with α-decay in österreich"
    entry = exports.to_bibtex(work)
    assert "\\ensuremath{\\alpha}" in entry and '{\\"o}sterreich' in entry
    assert "$" not in re.search(r"  title = (.*)", entry).group(1)
    assert "TI  - Search for B^0_s →μ^+μ^- with α-decay in österreich\r\n" in exports.to_ris(work)


def test_bibtex_authors_are_family_given_and_a_name_with_and_stays_one(work):
    entry = exports.to_bibtex(work)
    authors = re.search(r"  author = \{(.*)\},", entry).group(1)
    assert authors == (
        "Jangda, Abhinav and van Beethoven, Ludwig and {Barnes and Noble} and Plato and "
        "Curie, Marie"
    )
    assert re.search(r"\b2022\b", entry)
    assert "  month = feb," in entry  # a macro, which styles print in their own language
    assert "  doi = {10.1145/3503222.3507778}," in entry
    assert "  eprint = {2105.05720}," in entry
    assert "  archivePrefix = {arXiv}," in entry
    assert "  primaryClass = {cs.DC}," in entry


def test_a_doi_with_an_underscore_comes_back_without_a_backslash(work):
    work.doi = "10.1002/(sici)1097-4636_199%7Bx}"
    entry = exports.to_bibtex(work)
    assert "  doi = {10.1002/(sici)1097-4636_199%7Bx%7D}," in entry
    work.doi = "10.1000/abc_def"
    assert "  doi = {10.1000/abc_def}," in exports.to_bibtex(work)
    assert "DO  - 10.1000/abc_def\r\n" in exports.to_ris(work)
    assert exports.to_csl(work)["DOI"] == "10.1000/abc_def"


def test_a_preprint_is_misc_with_its_eprint_and_unpublished_in_ris(work):
    work.type = Work.Type.PREPRINT
    entry = exports.to_bibtex(work)
    assert entry.startswith("@misc{")
    assert "  archivePrefix = {arXiv}," in entry and "  eprint = {2105.05720}," in entry
    assert "journal" not in entry
    assert exports.to_ris(work).startswith("TY  - UNPB\r\n")
    assert exports.to_csl(work)["type"] == "article"
    # An arXiv record that names no venue is a preprint whatever its type says.
    work.type, work.venue = Work.Type.ARTICLE, None
    assert exports.to_bibtex(work).startswith("@misc{")
    assert exports.to_ris(work).startswith("TY  - UNPB\r\n")


def test_bibtex_types_follow_the_work_type(work):
    for kind, entry_type in [
        (Work.Type.PREPRINT, "@misc{"),
        # biblatex asks a chapter's @incollection for editors and its @inbook for pages,
        # which this record lacks.
        (Work.Type.BOOK_CHAPTER, "@misc{"),
        # No record names a thesis's school, which @phdthesis requires: @misc says what it is.
        (Work.Type.DISSERTATION, "@misc{"),
        (Work.Type.DATASET, "@misc{"),
    ]:
        work.type = kind
        assert exports.to_bibtex(work).startswith(entry_type)


def test_citation_key_is_ascii_even_for_accented_names():
    work = WorkFactory(title="Élan vital revisited", publication_year=2001)
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Søren Ærø"))
    assert exports.citation_key(work) == "aero2001elan"
    untitled = WorkFactory(title="", publication_year=None)
    assert exports.citation_key(untitled) == "anonwork"


def test_ris_download_has_its_content_type_and_one_line_per_tag(client, work):
    response = client.get(f"/works/{work.pk}/export.ris")
    assert response["Content-Type"] == "application/x-research-info-systems; charset=utf-8"
    assert response["Content-Disposition"].endswith('.ris"')
    text = response.content.decode()
    lines = text.split("\r\n")
    assert lines[0] == "TY  - JOUR"
    assert lines[-2:] == ["ER  - ", ""]
    assert all(re.match(r"^[A-Z][A-Z0-9]  - ", line) for line in lines[:-1])
    assert [line for line in lines if line.startswith("AU")] == [
        "AU  - Jangda, Abhinav",
        "AU  - van Beethoven, Ludwig",
        "AU  - Barnes and Noble",
        "AU  - Plato",
        "AU  - Curie, Marie",
    ]
    assert "AB  - Line one with α < β. Second paragraph with a tab." in lines
    assert "N1  - 12 pages ICSE 2022" in lines
    assert "DA  - 2022/02/28/" in lines
    assert "DO  - 10.1145/3503222.3507778" in lines
    assert "T2  - Journal of Odd & Even_Numbers" in lines
    assert "KW  - Distributed computing" in lines
    assert "L1  - https://example.org/paper.pdf" in lines


def test_ris_types_and_a_year_only_date():
    work = WorkFactory(type=Work.Type.PREPRINT, publication_year=2019, publication_date=None)
    text = exports.to_ris(work)
    assert text.startswith("TY  - UNPB\r\n")
    assert "DA  - 2019///\r\n" in text


def test_exports_of_a_merged_work_go_to_the_work_it_became(client, work):
    old = WorkFactory(merged_into=work)
    response = client.get(f"/works/{old.pk}/export.ris")
    assert response.status_code == 302  # not 301: staff can undo the merge
    assert response["Location"] == f"/works/{work.pk}/export.ris"


def test_exports_of_an_unknown_work_are_404(client):
    assert client.get("/works/987654/export.bib").status_code == 404
    assert client.get("/works/987654/export.ris").status_code == 404


def test_volume_issue_and_pages_are_in_every_export():
    work = WorkFactory(
        title="Open access at scale",
        type=Work.Type.ARTICLE,
        venue=VenueFactory(name="PeerJ"),
        publication_year=2018,
        volume="15",
        issue="2",
        first_page="32",
        last_page="42",
    )

    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Heather Piwowar"))
    bibtex = exports.to_bibtex(work)
    assert "volume = {15}" in bibtex and "number = {2}" in bibtex and "pages = {32--42}" in bibtex
    ris = exports.to_ris(work).split("\r\n")
    assert {"VL  - 15", "IS  - 2", "SP  - 32", "EP  - 42"} <= set(ris)
    csl = exports.to_csl(work)
    assert (csl["volume"], csl["issue"], csl["page"]) == ("15", "2", "32-42")


def test_one_page_or_none_is_written_as_such():
    one = WorkFactory(
        type=Work.Type.ARTICLE, venue=VenueFactory(), first_page="e4375", last_page="e4375"
    )
    AuthorshipFactory(work=one, author=AuthorFactory(display_name="Ada Lovelace"))
    assert "pages = {e4375}" in exports.to_bibtex(one)
    assert exports.to_csl(one)["page"] == "e4375"
    none = WorkFactory(type=Work.Type.ARTICLE, venue=VenueFactory(), first_page="", last_page="12")
    assert "pages" not in exports.to_bibtex(none) and "page" not in exports.to_csl(none)
    assert "EP  - " not in exports.to_ris(none)


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("Alistair Van Moere", ("Van Moere", "Alistair")),
        ("Adrian Del Maestro", ("Del Maestro", "Adrian")),
        ("Ana Maria da Silva", ("da Silva", "Ana Maria")),
        ("Van Morrison", ("Morrison", "Van")),  # a first word is a given name
    ],
)
def test_particles_join_the_family_name_whatever_their_case(name, split):
    assert exports.family_given(name) == split

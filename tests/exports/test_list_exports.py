"""Whole-list exports read back by independent parsers: bibtexparser, pybtex, rispy, citeproc-py.

Every export of many generated works, hostile text among them, is parsed and
its title, authors, year, DOI and arXiv id compared with the record.
"""

from __future__ import annotations

import json
import random
import re
from datetime import date

import pytest
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as citeproc_formatter
from citeproc.source.json import CiteProcJSON
from pybtex.database import parse_string as pybtex_parse
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from catalogue.models import Work
from catalogue.selectors import works_with_authors
from exports import work as exports
from tests.exports.bibtex import read_bibtex
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory
from tests.hostile import CONTROLS, HANDLER, RTL, SCRIPT, ZERO_WIDTH

pytestmark = pytest.mark.django_db

TITLES = [
    "Plain words only",
    "50% of {braces} cost $1024 & more: a_b ~ c^d #1",
    "Back\\slash and {unbalanced brace",
    "Café, naïve façade and Ørsted in Þórshöfn",
    "Attention is all you need: 中文 and עברית and Ελληνικά",
    f"Script {SCRIPT} and {HANDLER} in a title",
    # NUL never reaches a stored text (PostgreSQL refuses it; imports drop it).
    f"Right{RTL}to left and zero{ZERO_WIDTH}width and controls{CONTROLS.replace(chr(0), '')}here",
    "The word and in a title, and, And",
    "Percent % at the end %",
    "@misc{injected, title={x}} and } closing",
]
ARXIV_TITLES = [
    r"Search for $B^0_s \to \mu^+\mu^-$ decays",
    r"The $\alpha$-decay of {\"o}sterreich nuclei and $\sqrt{s}=13$ TeV",
    r"A \emph{sharp} bound on $O(n \log n)$ with 100% of \textbf{it}",
]
NAMES = [
    "Grace Hopper",
    "Ludwig van Beethoven",
    "Barnes and Noble",
    "Plato",
    "Curie, Marie",
    "José María Nuñez-López",
    "Søren Kierkegaard",
    "李 小龙",
    "O'Brien, Pat",
    "{Braced} Name",
    f"Hos{RTL}tile{ZERO_WIDTH} Person",
]
DOIS = [
    "10.1000/abc_def",
    "10.1002/(sici)1097-4636(199)3:4<1::aid>3.0.co;2-x",
    "10.5555/percent%20and#hash",
    "10.1145/under_score_many_",
]


def _text(value: str) -> str:
    """Compare text as a reader sees it: white space collapsed."""
    return " ".join(value.split())


_MACROS = get_default_latex_context_db()
_MACROS.add_context_category(
    "braces",
    prepend=True,
    macros=[
        MacroTextSpec(name, text)
        for name, text in (
            ("textbraceleft", "{"),
            ("textbraceright", "}"),
            # The ASCII characters themselves, not the spacing accents U+02C6 and U+02DC.
            ("textasciicircum", "^"),
            ("textasciitilde", "~"),
        )
    ],
)
_LATEX = LatexNodes2Text(math_mode="text", latex_context=_MACROS)


def _from_latex(value: str) -> str:
    return _text(_LATEX.latex_to_text(value))


def _split_names(value: str) -> list[str]:
    """BibTeX's rule: names are split at an "and" outside braces."""
    names, depth, start = [], 0, 0
    for index, char in enumerate(value):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and value.startswith(" and ", index):
            names.append(value[start:index])
            start = index + 5
    return [*names, value[start:]]


@pytest.fixture
def researcher():
    """A researcher with many works: hostile titles, arXiv LaTeX, shared keys, odd DOIs."""
    rng = random.Random(20)
    me = AuthorFactory(display_name="Ada Lovelace")
    venue = VenueFactory(name="Journal of Odd & Even_Numbers", publisher="Q# Press")
    for number in range(60):
        arxiv = number % 3 == 0
        title = (ARXIV_TITLES if arxiv else TITLES)[number % (3 if arxiv else len(TITLES))]
        work = WorkFactory(
            title=title,
            type=rng.choice([Work.Type.ARTICLE, Work.Type.PREPRINT, Work.Type.BOOK_CHAPTER]),
            venue=None if arxiv else venue,
            publication_year=2015 + number % 4,
            publication_date=date(2015 + number % 4, 1 + number % 12, 1 + number % 28),
            # Every work has a DOI or an arXiv id (some both), so each entry names its record.
            doi=None if arxiv and number % 2 == 0 else f"{DOIS[number % len(DOIS)]}.{number}",
            arxiv_id=(
                f"{2101 + number % 9}.{10000 + number}"
                if number % 2
                else f"hep-th/{9901000 + number}"
            )
            if arxiv
            else None,
            arxiv_primary_category="hep-th" if arxiv else "",
            provenance={"title": "arxiv" if arxiv else "openalex"},
        )
        coauthors = rng.sample(NAMES, 3)
        AuthorshipFactory(work=work, author=me, position=0)
        for position, name in enumerate(coauthors, start=1):
            AuthorshipFactory(work=work, author=AuthorFactory(display_name=name), position=position)
    return me


def _download(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode("utf-8")


def _works_by_doi_or_arxiv(researcher):
    return list(works_with_authors(Work.objects.filter(authorships__author=researcher)))


def _expected(work: Work) -> dict:
    return {
        "title": _text(exports.title_text(work)),
        "authors": exports.author_names(work),
        "year": work.publication_year,
        "doi": work.doi,
        "arxiv": work.arxiv_id,
        "type": work.type,
    }


def _match(expected: list[dict], title: str, year: int, doi: str | None, arxiv: str | None):
    """The record an entry came from: found by its ids or title and year, exactly once."""
    found = [
        e
        for e in expected
        if e["title"] == title and e["year"] == year and e["doi"] == doi and e["arxiv"] == arxiv
    ]
    assert found, (title, year, doi, arxiv)
    return found[0]


def test_bibtex_export_reads_back_in_bibtexparser(client, researcher):
    text = _download(client, f"/researchers/{researcher.pk}/export.bib")
    entries = read_bibtex(text)
    expected = [_expected(w) for w in _works_by_doi_or_arxiv(researcher)]
    assert len(entries) == len(expected) == 60
    keys = [entry["ID"] for entry in entries]
    assert len(set(keys)) == len(keys)
    for entry in entries:
        title = _from_latex(entry["title"])
        year = int(entry["year"])
        record = _match(expected, title, year, entry.get("doi"), entry.get("eprint"))
        authors = _split_names(entry["author"])
        assert len(authors) == len(record["authors"])  # a name with "and" stays one author
        assert entry["month"] in {
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        }
        if entry.get("eprint"):
            assert entry["archiveprefix"] == "arXiv"
            assert entry["primaryclass"] == "hep-th"
        if record["type"] == Work.Type.PREPRINT:
            assert entry["ENTRYTYPE"] == "misc"
            assert "journal" not in entry


def test_bibtex_export_reads_back_in_pybtex(client, researcher):
    text = _download(client, f"/researchers/{researcher.pk}/export.bib")
    database = pybtex_parse(text, "bibtex")
    expected = {
        (e["title"], e["year"], e["doi"], e["arxiv"]): e
        for e in map(_expected, _works_by_doi_or_arxiv(researcher))
    }
    assert len(database.entries) == 60
    for entry in database.entries.values():
        fields = entry.fields
        key = (
            _from_latex(fields["title"]),
            int(fields["year"]),
            fields.get("doi"),
            fields.get("eprint"),
        )
        assert key in expected, key
        people = entry.persons.get("author", [])
        names = [_from_latex(str(person)) for person in people]
        wanted = expected[key]["authors"]
        assert len(names) == len(wanted)
        for got, name in zip(names, wanted, strict=True):
            family, given = exports.family_given(name)
            assert _text(family.replace("{", "").replace("}", "")) in got.replace("{", "")


def test_ris_export_reads_back_in_rispy(client, researcher):
    text = _download(client, f"/researchers/{researcher.pk}/export.ris")
    entries = rispy.loads(text)
    expected = [_expected(w) for w in _works_by_doi_or_arxiv(researcher)]
    assert len(entries) == 60
    for entry in entries:
        arxiv = entry.get("accession_number", "").removeprefix("arXiv:") or None
        record = _match(expected, entry["title"], int(entry["year"]), entry.get("doi"), arxiv)
        assert len(entry["authors"]) == len(record["authors"])
        assert entry["type_of_reference"] in {"JOUR", "UNPB", "CHAP"}
        if entry["type_of_reference"] == "JOUR":  # a journal article names its journal
            assert entry["secondary_title"] == "Journal of Odd & Even_Numbers"
        if record["type"] == Work.Type.PREPRINT:
            assert entry["type_of_reference"] == "UNPB"


def test_csl_json_export_reads_back_in_citeproc(client, researcher):
    text = _download(client, f"/researchers/{researcher.pk}/export.json")
    items = json.loads(text)
    expected = [_expected(w) for w in _works_by_doi_or_arxiv(researcher)]
    assert len(items) == 60
    for item in items:
        arxiv = item.get("number", "").removeprefix("arXiv:") or None
        year = item["issued"]["date-parts"][0][0]
        record = _match(expected, item["title"], year, item.get("DOI"), arxiv)
        assert len(item["author"]) == len(record["authors"])
        assert all(set(name) <= {"family", "given", "literal"} for name in item["author"])
    # citeproc-py reads the items and formats a bibliography from them.
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, citeproc_formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"].lower())]))
    rendered = [str(entry) for entry in bibliography.bibliography()]
    assert len(rendered) == 60
    assert any("Lovelace" in entry for entry in rendered)


def test_keys_are_suffixed_in_id_order_whatever_the_sort_or_filter(client, researcher):
    twins = []
    for title, cited in [("Zeta: twin study", 1), ("Zeta twin study again", 50), ("ZETA", 9)]:
        work = WorkFactory(
            title=title,
            publication_year=2030,
            cited_by_count=cited,
            doi=f"10.9/{cited}",
            venue=VenueFactory(name="Twin Studies"),
        )
        AuthorshipFactory(work=work, author=researcher, position=0)
        twins.append(work)
    base = f"/researchers/{researcher.pk}/export"
    keys = {}
    for query in (
        "",
        "?sort=cited",
        "?sort=title",
        "?year_from=2016&year_to=2017",
        "?year_from=2030",
    ):
        for item in json.loads(_download(client, f"{base}.json{query}")):
            identity = (item["title"], item.get("DOI"), item.get("number"), str(item["issued"]))
            keys.setdefault(identity, set()).add(item["id"])
    assert all(len(seen) == 1 for seen in keys.values())  # one key per work in every export
    assert len({key for seen in keys.values() for key in seen}) == len(keys)
    # The oldest record keeps "a", whatever the order the list is sorted in.
    cited_first = _download(client, f"{base}.bib?sort=cited&year_from=2030")
    assert re.findall(r"^@\w+\{(lovelace2030zeta\w*),", cited_first, re.M) == [
        "lovelace2030zetab",
        "lovelace2030zetac",
        "lovelace2030zetaa",
    ]
    # A filter that leaves one twin out changes no key.
    one = _download(client, f"{base}.bib?year_from=2030&sort=title&type=article")
    assert "@article{lovelace2030zetaa," in one


def test_export_lists_what_the_filtered_page_lists(client, researcher):
    query = "?type=preprint&year_from=2016"
    page = client.get(f"{researcher.get_absolute_url()}{query}")
    shown = page.context["works"].paginator.count + len(page.context.get("pinned_works") or [])
    items = json.loads(_download(client, f"/researchers/{researcher.pk}/export.json{query}"))
    assert len(items) == shown > 0
    assert all(item["type"] == "article" for item in items)
    assert all(item["issued"]["date-parts"][0][0] >= 2016 for item in items)
    assert f'href="/researchers/{researcher.pk}/export.bib{query.replace("&", "&amp;")}"' in (
        page.content.decode()
    )


def test_a_list_export_reads_its_works_in_chunks_of_a_few_queries(client, researcher, monkeypatch):
    """Memory stays bounded: works come in chunks, each in the same few queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from exports import lists as list_exports

    counts = {}
    for chunk in (60, 20, 7):
        monkeypatch.setattr(list_exports, "CHUNK", chunk)
        with CaptureQueriesContext(connection) as queries:
            text = _download(client, f"/researchers/{researcher.pk}/export.ris")
        assert text.count("ER  - ") == 60
        counts[chunk] = len(queries)
    two_chunks = counts[20] - counts[60]  # 3 chunks of 20 rather than 1 of 60
    assert 0 < two_chunks <= 2 * 2  # the works and their authors, per further chunk
    assert counts[7] - counts[60] == two_chunks * 4  # 9 chunks of 7 rather than 1 of 60
    assert counts[60] <= 10


def test_a_merged_researcher_export_goes_to_the_record_it_became(client, researcher):
    old = AuthorFactory(merged_into=researcher)
    response = client.get(f"/researchers/{old.pk}/export.bib?type=preprint")
    assert response.status_code == 302  # not 301: staff can undo the merge
    assert response["Location"] == f"/researchers/{researcher.pk}/export.bib?type=preprint"
    assert client.get("/researchers/987654/export.ris").status_code == 404


def test_a_search_page_downloads_its_works(client, researcher):
    page = client.get("/search/?q=plain")
    shown = [w.pk for w in page.context["works"]]
    assert shown
    response = client.get("/search/export.json?q=plain")
    assert response["Content-Type"].startswith("application/vnd.citationstyles.csl+json")
    assert 'filename="search-plain-page-1.json"' in response["Content-Disposition"]
    items = json.loads(response.content)
    assert len(items) == len(shown)
    assert all(item["title"] == "Plain words only" for item in items)
    assert len({item["id"] for item in items}) == len(items)
    assert rispy.loads(client.get("/search/export.ris?q=plain").content.decode())
    assert client.get("/search/export.bib?q=").content == b""


def test_a_list_leaves_abstracts_out_and_a_work_s_own_export_keeps_it(client, researcher):
    work = WorkFactory(title="With an abstract", abstract="We show that $\\alpha$ holds.")
    AuthorshipFactory(work=work, author=researcher, position=0)
    listed = json.loads(_download(client, f"/researchers/{researcher.pk}/export.json"))
    assert all("abstract" not in item for item in listed)
    assert "AB  - " not in _download(client, f"/researchers/{researcher.pk}/export.ris")
    own = client.get(f"/works/{work.pk}/export.ris").content.decode()
    assert "AB  - We show that α holds.\r\n" in own

"""A preprint and its version of record are one work, whatever arrives first.

arXiv's record of a preprint, OpenAlex's record of the version of record (which
may carry the arXiv id as an arxiv.org location or a 10.48550 DOI) and OpenAlex's
record of the preprint make one work: its byline, affiliations, funding and
topics are the version of record's, each person on it once; the preprint adds
its arXiv id, categories, comments and code link; every record stays in the
provenance. Importing the same files in any order gives the same works, bylines
and authors.
"""

import itertools

import pytest
from django.db import transaction

from catalogue.models import Author, Grant, ImportProblem, SourceRecord, Work
from ingestion.ingest.versions import align
from tests.ingestion.sources.facts import arxiv_entry, arxiv_feed, openalex_page, run_file

pytestmark = pytest.mark.django_db

ARXIV_ID = "2101.00001"
TITLE = "Superfluid helium in nanopores"
PEOPLE = ["Adrian Del Maestro", "Bernd Rosenow", "Nathan Nichols"]


def authorship(number: int, name: str, affiliation: str, with_institution: bool = True) -> dict:
    return {
        "author": {"id": f"https://openalex.org/A{number}", "display_name": name},
        "raw_author_name": name,
        "raw_affiliation_strings": [affiliation],
        "institutions": [
            {"id": f"https://openalex.org/I{number}", "display_name": f"University {number}"}
        ]
        if with_institution
        else [],
    }


def version_of_record(**fields) -> dict:
    """The journal article, with its arXiv copy among its locations."""
    work = {
        "id": "https://openalex.org/W100",
        "title": TITLE,
        "type": "article",
        "publication_year": 2021,
        "publication_date": "2021-09-01",
        "doi": "https://doi.org/10.1103/physrevb.104.1",
        "locations": [{"landing_page_url": f"https://arxiv.org/abs/{ARXIV_ID}v2"}],
        "authorships": [authorship(n, name, f"Dept {n}") for n, name in enumerate(PEOPLE, 1)],
        "grants": [
            {"funder": "https://openalex.org/F1", "funder_display_name": "NSF", "award_id": "D-1"}
        ],
        "topics": [{"id": "https://openalex.org/T1", "display_name": "Superfluids", "score": 0.9}],
    }
    work.update(fields)
    return work


def openalex_preprint() -> dict:
    """OpenAlex's record of the preprint: an arXiv DOI, other author ids, other affiliations."""
    names = ["A. Del Maestro", "B. Rosenow", "N. Nichols"]
    return version_of_record(
        id="https://openalex.org/W200",
        type="preprint",
        doi=f"https://doi.org/10.48550/arXiv.{ARXIV_ID}",
        publication_date="2021-01-02",
        locations=[],
        grants=[],
        topics=[{"id": "https://openalex.org/T2", "display_name": "Preprint topic", "score": 0.5}],
        authorships=[
            authorship(n, name, "Preprint dept", False) for n, name in enumerate(names, 11)
        ],
    )


def preprint_entry(arxiv_id: str = ARXIV_ID, title: str = TITLE, **fields) -> str:
    return arxiv_entry(
        arxiv_id,
        title,
        "2021-01-02",
        authors=fields.pop("authors", "A. Del Maestro, B. Rosenow, N. Nichols"),
        comment="10 pages; code at https://github.com/example/helium",
        categories="cond-mat.other cond-mat.stat-mech",
        **fields,
    )


def byline(work: Work) -> list[tuple]:
    return list(
        work.authorships.order_by("position").values_list(
            "position", "author__display_name", "raw_affiliation", "source"
        )
    )


def the_work() -> Work:
    (work,) = Work.objects.filter(merged_into__isnull=True)
    return work


def check_one_work_of_record_byline(work: Work) -> None:
    assert byline(work) == [
        (0, "Adrian Del Maestro", "Dept 1", "openalex"),
        (1, "Bernd Rosenow", "Dept 2", "openalex"),
        (2, "Nathan Nichols", "Dept 3", "openalex"),
    ]
    assert not work.unlinked_authorships.exists()
    assert list(Grant.objects.filter(work=work).values_list("award_id", flat=True)) == ["D-1"]
    assert "openalex:T1" in set(work.topics.values_list("key", flat=True))
    assert (work.doi, work.arxiv_id, work.openalex_id) == (
        "10.1103/physrevb.104.1",
        ARXIV_ID,
        "W100",
    )


# The failures seen: a byline holding everyone twice, the journal's facts replaced -------


def test_the_preprint_first_then_the_version_of_record_holds_each_person_once(tmp_path):
    run_file(tmp_path, arxiv_feed(preprint_entry()), ".atom")
    bare = set(Author.objects.values_list("pk", flat=True))

    run_file(tmp_path, openalex_page(version_of_record()))

    work = the_work()
    check_one_work_of_record_byline(work)
    # The records the preprint's bare names made hold nothing now: they are those people.
    merged = Author.objects.filter(pk__in=bare)
    assert {a.merged_into.display_name for a in merged} == set(PEOPLE)
    assert not Author.objects.visible().filter(pk__in=bare).exists()


def test_the_version_of_record_first_then_the_preprint_adds_only_its_own_facts(tmp_path):
    run_file(tmp_path, openalex_page(version_of_record()))

    run = run_file(tmp_path, arxiv_feed(preprint_entry()), ".atom")

    assert run.counters["problems"] == 0
    work = the_work()
    check_one_work_of_record_byline(work)
    assert Author.objects.count() == 3  # the preprint's names made no record
    assert work.arxiv_primary_category == "cond-mat.other"
    assert work.comments.startswith("10 pages")
    assert work.code_url == "https://github.com/example/helium"
    assert {"arxiv:cond-mat.other", "arxiv:cond-mat.stat-mech"} <= set(
        work.topics.values_list("key", flat=True)
    )
    assert set(SourceRecord.objects.filter(work=work).values_list("source", "external_id")) == {
        ("openalex", "W100"),
        ("arxiv", ARXIV_ID),
    }


@pytest.mark.parametrize("preprint_first", [True, False])
def test_openalex_record_of_the_preprint_never_replaces_the_journal_facts(tmp_path, preprint_first):
    pages = [openalex_page(version_of_record()), openalex_page(openalex_preprint())]
    for page in reversed(pages) if preprint_first else pages:
        run_file(tmp_path, page)

    work = the_work()
    check_one_work_of_record_byline(work)
    assert "openalex:T2" not in set(work.topics.values_list("key", flat=True))
    assert work.provenance["byline"] == {"source": "openalex", "id": "W100", "rank": 2}
    assert set(SourceRecord.objects.filter(work=work).values_list("external_id", flat=True)) == {
        "W100",
        "W200",
    }


def test_an_arxiv_record_whose_id_a_work_holds_as_an_arxiv_doi_joins_it(tmp_path):
    run_file(tmp_path, openalex_page(openalex_preprint()))

    run = run_file(tmp_path, arxiv_feed(preprint_entry()), ".atom")

    assert run.counters["problems"] == 0
    assert not ImportProblem.objects.exists()
    work = the_work()
    assert (work.doi, work.arxiv_id) == (f"10.48550/arxiv.{ARXIV_ID}", ARXIV_ID)
    assert [name for _, name, _, _ in byline(work)] == [
        "A. Del Maestro",
        "B. Rosenow",
        "N. Nichols",
    ]


# Aligning two bylines ------------------------------------------------------------------


def test_bylines_are_aligned_by_names_never_by_position_alone():
    kept = ["Adrian Del Maestro", "Bernd Rosenow", "Nathan Nichols", "Jane Doe"]
    other = ["N. Nichols", "A. Del Maestro", "Someone Else", "B. ROSENOW"]
    assert align(kept, other) == [(0, 1), (1, 3), (2, 0)]
    # Two namesakes on one byline: each name pairs once, the nearest first.
    assert align(["J. Smith", "A. Jones", "J. Smith"], ["John Smith", "Jane Smith"]) == [
        (0, 0),
        (2, 1),
    ]
    assert align(["Bernd Rosenow"], ["Adrian Del Maestro"]) == []


# The same files in every order ------------------------------------------------------------


def files() -> dict[str, tuple[str, str]]:
    works = openalex_page(
        version_of_record(),
        version_of_record(
            id="https://openalex.org/W300",
            title="Vortex lattices in thin films",
            doi="https://doi.org/10.1103/physrevb.104.9",
            locations=[],
            authorships=[authorship(2, "Bernd Rosenow", "Dept 2")],
            grants=[],
        ),
    )
    feed = arxiv_feed(
        preprint_entry(),
        preprint_entry(
            "2102.00002", "Quantum Monte Carlo of helium films", authors="A. Del Maestro, C. Wu"
        ),
    )
    authors = openalex_page(
        *(
            {
                "id": f"https://openalex.org/A{n}",
                "display_name": name,
                "works_count": 10,
                "cited_by_count": 100,
            }
            for n, name in enumerate(PEOPLE, 1)
        )
    )
    return {"works": (works, ".json"), "feed": (feed, ".atom"), "authors": (authors, ".json")}


def outcome() -> dict:
    """Works, bylines and authors by what identifies them (row ids differ between orders)."""
    works = {}
    for work in Work.objects.filter(merged_into__isnull=True):
        works[(work.doi, work.arxiv_id, work.openalex_id)] = (
            work.title,
            work.code_url,
            [(position, name, affiliation) for position, name, affiliation, _ in byline(work)],
            sorted(work.unlinked_authorships.values_list("position", "raw_name")),
            sorted(work.topics.values_list("key", flat=True)),
            sorted(Grant.objects.filter(work=work).values_list("award_id", flat=True)),
            sorted(work.source_records.values_list("source", "external_id")),
        )
    authors = sorted(
        (a.display_name, a.openalex_id or "", sorted(a.works.values_list("title", flat=True)))
        for a in Author.objects.visible()
    )
    return {"works": works, "authors": authors, "problems": ImportProblem.objects.count()}


ORDERS = list(itertools.permutations(["works", "feed", "authors"]))


def test_the_same_files_in_every_order_give_the_same_works_bylines_and_authors(tmp_path):
    results = {}
    for order in ORDERS:
        with transaction.atomic():
            for name in order:
                text, suffix = files()[name]
                run_file(tmp_path, text, suffix)
            results[order] = outcome()
            transaction.set_rollback(True)

    first = results[ORDERS[0]]
    assert first["problems"] == 0
    assert len(first["works"]) == 3  # the journal article and its preprint are one work
    merged = first["works"][("10.1103/physrevb.104.1", ARXIV_ID, "W100")]
    assert [name for _, name, _ in merged[2]] == PEOPLE
    for order, result in results.items():
        assert result == first, order

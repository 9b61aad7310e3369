"""The search box understands ids: DOI, arXiv, ORCID and OpenAlex, bare or as addresses."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from catalogue.identifiers import parse_reference
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("10.1145/3503222.3507778", ("doi", "10.1145/3503222.3507778")),
        ("doi:10.1000/ABC_def", ("doi", "10.1000/abc_def")),
        ("https://doi.org/10.1000/abc_def", ("doi", "10.1000/abc_def")),
        ("http://dx.doi.org/10.1000/x(1)", ("doi", "10.1000/x(1)")),
        ("https://doi.org/10.48550/arXiv.2101.00001", ("arxiv", "2101.00001")),
        ("2101.00001", ("arxiv", "2101.00001")),
        ("2101.00001v3", ("arxiv", "2101.00001")),
        ("arXiv:1705.10311v2", ("arxiv", "1705.10311")),
        ("hep-th/9901001", ("arxiv", "hep-th/9901001")),
        ("arXiv:math.GT/0309136v1", ("arxiv", "math.gt/0309136")),
        ("https://arxiv.org/abs/2101.00001v2", ("arxiv", "2101.00001")),
        ("arxiv.org/pdf/hep-th/9901001v1.pdf", ("arxiv", "hep-th/9901001")),
        ("0000-0002-1825-0097", ("orcid", "0000-0002-1825-0097")),
        ("https://orcid.org/0000-0002-1694-233X", ("orcid", "0000-0002-1694-233X")),
        ("orcid.org/0000-0002-1825-0097/", ("orcid", "0000-0002-1825-0097")),
        ("W2741809807", ("openalex-work", "W2741809807")),
        ("https://openalex.org/W2741809807", ("openalex-work", "W2741809807")),
        ("openalex.org/works/w2741809807", ("openalex-work", "W2741809807")),
        ("A5023888391", ("openalex-author", "A5023888391")),
        ("https://openalex.org/authors/A5023888391", ("openalex-author", "A5023888391")),
        # Words, and things shaped like ids that are not one, are searched as words.
        ("A4", None),
        ("2020", None),
        ("Lovelace", None),
        ("deep learning", None),
        ("0000-0002-1825-0098", None),  # the checksum fails
        ("https://openalex.org/I1234567", None),  # an institution, no page of ours
        ("10.1145", None),
        ("", None),
    ],
)
def test_ids_are_recognised_bare_prefixed_and_as_addresses(query, expected):
    assert parse_reference(query) == expected


@pytest.fixture
def held():
    author = AuthorFactory(
        display_name="Ada Lovelace", orcid="0000-0002-1825-0097", openalex_id="A5023888391"
    )
    work = WorkFactory(
        title="Notes on the analytical engine",
        doi="10.1000/abc_def",
        arxiv_id="hep-th/9901001",
        openalex_id="W2741809807",
    )
    AuthorshipFactory(work=work, author=author)
    preprint = WorkFactory(title="A new-style preprint", arxiv_id="2101.00001")
    return author, work, preprint


@pytest.mark.parametrize(
    ("query", "target"),
    [
        ("10.1000/ABC_def", "work"),
        ("https://doi.org/10.1000/abc_def", "work"),
        ("arXiv:hep-th/9901001v2", "work"),
        ("https://arxiv.org/abs/hep-th/9901001", "work"),
        ("W2741809807", "work"),
        ("https://openalex.org/W2741809807", "work"),
        ("2101.00001v4", "preprint"),
        ("https://doi.org/10.48550/arXiv.2101.00001", "preprint"),
        ("0000-0002-1825-0097", "author"),
        ("https://orcid.org/0000-0002-1825-0097", "author"),
        ("openalex.org/A5023888391", "author"),
    ],
)
def test_an_id_we_hold_goes_straight_to_its_page(client, held, query, target):
    author, work, preprint = held
    response = client.get("/search/", {"q": query})
    assert response.status_code == 302
    expected = {"author": author, "work": work, "preprint": preprint}[target]
    assert response["Location"] == expected.get_absolute_url()


def test_an_id_of_a_merged_record_goes_to_the_record_it_became(client, held):
    author, work, _ = held
    gone = WorkFactory(doi="10.1000/gone", merged_into=work)
    assert gone.merged_into_id == work.pk
    assert client.get("/search/", {"q": "doi:10.1000/gone"})["Location"] == work.get_absolute_url()
    old = AuthorFactory(orcid="0000-0002-1694-233X", merged_into=author)
    assert old.merged_into_id == author.pk
    response = client.get("/search/", {"q": "0000-0002-1694-233X"})
    assert response["Location"] == author.get_absolute_url()


@pytest.mark.parametrize(
    ("query", "path", "source"),
    [
        ("10.5555/not_here", "/works/doi/10.5555/not_here/", "https://doi.org/10.5555/not_here"),
        ("2312.99999v1", "/works/arxiv/2312.99999/", "https://arxiv.org/abs/2312.99999"),
        ("W1000001", "/works/openalex/W1000001/", "https://openalex.org/W1000001"),
        (
            "https://orcid.org/0000-0001-5109-3700",
            "/researchers/orcid/0000-0001-5109-3700/",
            "https://orcid.org/0000-0001-5109-3700",
        ),
        ("A1000001", "/researchers/openalex/A1000001/", "https://openalex.org/A1000001"),
    ],
)
def test_an_id_we_do_not_hold_says_so_with_the_source_link(client, held, query, path, source):
    response = client.get("/search/", {"q": query})
    assert response.status_code == 302
    assert response["Location"] == quote(path)
    page = client.get(response["Location"])
    assert page.status_code == 404
    assert f'href="{source}"' in page.content.decode()


def test_a_name_lists_the_person_first_and_then_their_works(client, held):
    author, work, _ = held
    other = WorkFactory(title="Sketch of the engine", publication_year=2024)
    AuthorshipFactory(work=other, author=author)
    stranger = AuthorFactory(display_name="Ada Byron")
    unrelated = WorkFactory(title="Lovelace's bridge design")  # matches the words, not the person
    AuthorshipFactory(work=unrelated, author=stranger)
    page = client.get("/search/", {"q": "lovelace ada"})
    assert page.status_code == 200
    assert page.context["person"] == author
    assert [w.pk for w in page.context["person_works"]] == [other.pk, work.pk]
    html = page.content.decode()
    person, their_works, works = (
        html.index(author.get_absolute_url()),
        html.index('id="person-works"'),
        html.index('id="found-works"'),
    )
    assert person < their_works < works
    # A part of a name shared by two researchers names neither.
    assert client.get("/search/", {"q": "Ada"}).context["person"] is None


def test_a_name_search_stays_within_its_query_budget(client, held, django_assert_max_num_queries):
    author, _, _ = held
    for number in range(30):
        AuthorshipFactory(work=WorkFactory(title=f"Engine note {number}"), author=author)
    with django_assert_max_num_queries(14):
        page = client.get("/search/", {"q": "Ada Lovelace"})
    assert len(page.context["person_works"]) == 5

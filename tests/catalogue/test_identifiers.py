import pytest

from catalogue.identifiers import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_orcid,
    normalize_title,
    surname,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://doi.org/10.7717/PEERJ.4375", "10.7717/peerj.4375"),
        ("doi:10.1000/ABC", "10.1000/abc"),
        ("10.48550/arXiv.2101.00001", "10.48550/arxiv.2101.00001"),
        ("not a doi", None),
        (None, None),
    ],
)
def test_doi_is_lower_cased_without_resolver(raw, expected):
    assert normalize_doi(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("http://arxiv.org/abs/1605.08386v1", "1605.08386"),
        ("2101.00001v3", "2101.00001"),
        ("arXiv:2101.00001", "2101.00001"),
        ("http://arxiv.org/abs/astro-ph/0601001v1", "astro-ph/0601001"),
        ("https://arxiv.org/pdf/2101.00001v2.pdf", "2101.00001"),
        ("math.GT/0309136", "math.gt/0309136"),
        ("abc", None),
    ],
)
def test_arxiv_id_loses_version_and_url(raw, expected):
    assert normalize_arxiv_id(raw) == expected


def test_arxiv_id_is_found_in_its_datacite_doi():
    assert arxiv_id_from_doi("https://doi.org/10.48550/arxiv.2101.00001") == "2101.00001"
    assert arxiv_id_from_doi("10.1000/xyz") is None


def test_openalex_ids_are_shortened():
    assert normalize_openalex_id("https://openalex.org/W2741809807") == "W2741809807"
    assert normalize_openalex_id("a5023888391") == "A5023888391"
    assert normalize_openalex_id("https://openalex.org/subfields/1702") is None


def test_orcid_checksum_is_verified():
    assert normalize_orcid("https://orcid.org/0000-0002-1825-0097") == "0000-0002-1825-0097"
    assert normalize_orcid("0000-0002-1694-233X") == "0000-0002-1694-233X"
    assert normalize_orcid("0000-0002-1825-0098") is None


def test_titles_and_names_fold_accents_case_and_punctuation():
    assert normalize_title("Déjà Vu: A  Study!") == "deja vu a study"
    assert surname("Larivière, Vincent") == "lariviere"
    assert surname("Vincent Larivière") == "lariviere"

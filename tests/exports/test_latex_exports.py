"""Exports of works whose title or abstract holds LaTeX that pylatexenc cannot read.

A failure to convert falls back to the text as written; a download never fails.
"""

import json

import pytest
import rispy

from catalogue.models import Work
from catalogue.tex import as_text, latex_to_text
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db

HREF_ABSTRACT = "We release code at \\href{https://github.com/example/repo}{this repository}."
HOSTILE = [
    "\\href{a}{b}",
    "$\\sqrt[$",
    "{" * 5000,
    HREF_ABSTRACT,
    "$\\input{/etc/passwd}$ \\write18{id}",
]


def _download(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode("utf-8")


@pytest.mark.parametrize("value", HOSTILE)
def test_latex_pylatexenc_cannot_read_falls_back_to_its_text(value):
    assert isinstance(latex_to_text(value), str)
    assert as_text(value, from_arxiv=True)


def test_a_link_reads_as_its_text():
    assert latex_to_text(HREF_ABSTRACT) == "We release code at this repository."
    assert latex_to_text("\\href{https://x.org}{$\\alpha$ text}") == "α text"


def test_an_unreadable_span_stays_as_written():
    assert latex_to_text("Roots $\\sqrt[$ here") == "Roots $\\sqrt[$ here"
    assert latex_to_text("{" * 5000) == "{" * 5000


def test_no_file_is_read(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a file was opened")

    monkeypatch.setattr("builtins.open", refuse)
    text = latex_to_text("Reading $\\input{/etc/passwd}$ and \\include{/etc/hosts} done")
    assert "root" not in text
    assert text == "Reading and done"


@pytest.mark.parametrize("value", HOSTILE)
def test_every_export_of_a_work_with_hostile_latex_answers(client, value):
    coauthor = AuthorFactory(display_name="Grace Hopper")
    work = WorkFactory(
        title=f"Hostile markup {value[:1000]}",
        abstract=value,
        type=Work.Type.PREPRINT,
        venue=None,
        arxiv_id="2401.00001",
        arxiv_primary_category="cs.LG",
        provenance={"title": "arxiv", "abstract": "arxiv"},
    )
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Ada Lovelace"), position=0)
    AuthorshipFactory(work=work, author=coauthor, position=1)

    for url in (
        f"/works/{work.pk}/export.bib",
        f"/works/{work.pk}/export.ris",
        f"/researchers/{coauthor.pk}/export.bib",
        f"/researchers/{coauthor.pk}/export.ris",
        f"/researchers/{coauthor.pk}/export.json",
        "/search/export.bib?q=hostile",
        "/search/export.ris?q=hostile",
    ):
        assert "Hostile markup" in _download(client, url), url

    ris = rispy.loads(_download(client, f"/works/{work.pk}/export.ris"))
    assert ris[0]["title"].startswith("Hostile markup")
    listed = json.loads(_download(client, f"/researchers/{coauthor.pk}/export.json"))
    assert listed[0]["title"].startswith("Hostile markup")


def test_a_linked_abstract_exports_the_link_text(client):
    work = WorkFactory(
        title="Code release",
        abstract=HREF_ABSTRACT,
        arxiv_id="2401.00002",
        provenance={"title": "arxiv", "abstract": "arxiv"},
    )
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Ada Lovelace"), position=0)
    ris = rispy.loads(_download(client, f"/works/{work.pk}/export.ris"))
    assert ris[0]["abstract"] == "We release code at this repository."

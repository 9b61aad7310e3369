"""Each work on a researcher page says why it is there, read with the authorships already loaded."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import Source
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


def facts(html: str) -> list[str]:
    """The link facts of the page's works, in page order."""
    found = re.findall(r'<small class="link-facts"[^>]*>(.*?)</small>', html, re.S)
    return [" ".join(text.split()) for text in found]


def record_with(evidence: list[str]):
    author = AuthorFactory(display_name="Anita Borg")
    coauthor = AuthorFactory(display_name="Telle Whitney")
    for year, said in enumerate(evidence, start=2001):
        work = WorkFactory(title=f"Work of {year}", publication_year=year)
        AuthorshipFactory(work=work, author=author, source=Source.OPENALEX, evidence=said)
        AuthorshipFactory(work=work, author=coauthor, position=1, evidence="ORCID")
    return author


def test_each_work_says_why_it_is_there_and_older_links_their_source(client):
    author = record_with(["ORCID", "name: initials agree, 3 shared co-authors, EPFL", ""])
    html = client.get(author.get_absolute_url()).content.decode()
    assert facts(html) == [
        "Linked by OpenAlex, 100% confidence",  # 2003: a link older than its evidence
        "Why here: name: initials agree, 3 shared co-authors, EPFL · Linked by OpenAlex, "
        "100% confidence",
        "Why here: ORCID · Linked by OpenAlex, 100% confidence",
    ]


def test_the_evidence_costs_no_query(client):
    said = record_with(["ORCID"] * 5)
    unsaid = record_with([""] * 5)
    counts = []
    for author in (said, unsaid):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(author.get_absolute_url()).status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]

"""Every author–work link shows where it came from and how sure it is; so does an affiliation."""

import pytest

from catalogue.models import Source
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def linked():
    ada, bob = AuthorFactory(display_name="Ada Example"), AuthorFactory(display_name="Bob Example")
    work = WorkFactory(title="A linked work", publication_year=2024)
    first = AuthorshipFactory(
        work=work, author=ada, position=0, source=Source.OPENALEX, confidence=1.0
    )
    first.institutions.add(InstitutionFactory(name="Example University"))
    AuthorshipFactory(
        work=work,
        author=bob,
        position=1,
        source=Source.CLAIM,
        confidence=0.85,
        raw_affiliation="Lab of Things, Example Town",
    )
    return work, ada, bob


def test_the_work_page_byline_says_each_links_source_and_confidence(client, linked):
    work, _, _ = linked
    page = client.get(work.get_absolute_url()).content.decode()
    assert "Linked by OpenAlex, 100% confidence" in page
    assert "Linked by Claim by the researcher, 85% confidence" in page


def test_affiliations_say_where_they_came_from(client, linked):
    work, _, _ = linked
    page = client.get(work.get_absolute_url()).content.decode()
    # The institution is named with a link to its page, then where it came from.
    assert 'Example University</a> <span class="from">from the OpenAlex institution record' in page
    assert 'Lab of Things, Example Town <span class="from">as written in the Claim' in page


def test_the_researchers_work_list_shows_their_links_source_and_confidence(client, linked):
    _, ada, bob = linked
    assert (
        "Linked by OpenAlex, 100% confidence" in client.get(ada.get_absolute_url()).content.decode()
    )
    bobs = client.get(bob.get_absolute_url()).content.decode()
    assert "Linked by Claim by the researcher, 85% confidence" in bobs
    assert "Linked by OpenAlex" not in bobs  # only the page's researcher's own link

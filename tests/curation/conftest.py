"""Fixtures the curation tests share: a staff client, works that pair up, namesakes, a split."""

import pytest

from catalogue.models import AuthorInstitution, SourceRecord
from tests.curation.curation_records import TITLE, arxiv_entry, ingest, openalex_work
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    WorkFactory,
)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def work_pair():
    """An OpenAlex work and an arXiv preprint of the same title by someone else: a candidate."""
    published = openalex_work(1, TITLE, [("A5000000001", "Ada Lovelace")])
    preprint = arxiv_entry("2006.00001", TITLE, ["Charles Babbage"])
    ingest("work", published)
    ingest("arxiv", preprint)
    return published, preprint


@pytest.fixture
def two_adas():
    """Ada (with an OpenAlex id) on works 1 and 2; a name-only Ada on works 2 and 3."""
    lab, other_lab = InstitutionFactory(), InstitutionFactory()
    ada = AuthorFactory(display_name="Ada Lovelace", openalex_id="A5000000001")
    namesake = AuthorFactory(display_name="Ada Lovelace", last_known_institution=other_lab)
    shared = WorkFactory(title="Shared work")
    AuthorshipFactory(author=ada, work=WorkFactory(title="Ada's own work"))
    AuthorshipFactory(author=ada, work=shared)
    duplicate = AuthorshipFactory(
        author=namesake, work=shared, position=1, source="arxiv", confidence=0.6
    )
    duplicate.institutions.add(lab)
    AuthorshipFactory(author=namesake, work=WorkFactory(title="The namesake's work"), position=2)
    AuthorInstitution.objects.create(author=ada, institution=lab)
    AuthorInstitution.objects.create(author=namesake, institution=lab, years=[2019])
    AuthorInstitution.objects.create(author=namesake, institution=other_lab, years=[2020])
    SourceRecord.objects.create(
        source="openalex",
        entity="author",
        external_id="A5000000009",
        payload={},
        content_hash="x",
        fetched_at="2024-01-01T00:00:00Z",
        author=namesake,
    )
    return ada, namesake


@pytest.fixture
def hopper_works():
    first = openalex_work(1, "Compilers for everyone", [("A5000000007", "Grace Hopper")])
    second = openalex_work(
        2, "Sea shanties and lattices", [("A5000000007", "Grace Hopper"), (None, "Ann Other")]
    )
    ingest("work", first, second)
    return first, second

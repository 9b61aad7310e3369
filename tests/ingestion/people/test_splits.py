"""Catch-all records: a record whose works look like two people gets a split proposal."""

import pytest

from catalogue.models import SplitProposal
from ingestion.people.blocks import resolve_block
from ingestion.people.splits import split_records
from tests.ingestion.people.builders import (
    FOLDS,
    ICE,
    NORTH,
    SOUTH,
    circle,
    person,
    two_people_record,
    work_by,
    works_with,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_people():
    """One record holding two people: two co-author circles, topics and decades apart."""
    return two_people_record()


def groups_of(proposal) -> list[set[int]]:
    return [set(group["work_ids"]) for group in proposal.groups]


def test_a_record_holding_two_people_gets_a_proposal_with_the_two_groups(two_people):
    daniel, old, new, *_ = two_people
    assert split_records([daniel.pk]) == 1
    proposal = SplitProposal.objects.get()
    assert proposal.author == daniel
    assert proposal.status == SplitProposal.Status.OPEN
    assert groups_of(proposal) == [{w.pk for w in old}, {w.pk for w in new}]  # largest first
    assert 0.5 <= proposal.score <= 1.0
    assert "no co-author in common" in proposal.reason
    first, second = (group["summary"] for group in proposal.groups)
    assert "1988–1992" in first and "Ingrid Halvorsen" in first and "Glaciology" in first
    assert "2016–2019" in second and "Chiara Benedetti" in second and "Protein folding" in second


def test_one_person_with_one_circle_gets_no_proposal():
    daniel = person("Daniel Okafor")
    north = circle(NORTH)
    works_with(daniel, north, ICE, first_year=1996, topic="Glaciology")
    works_with(daniel, north, FOLDS[:3], first_year=2016, topic="Glaciology")
    assert split_records([daniel.pk]) == 0
    assert not SplitProposal.objects.exists()


def test_works_that_share_a_co_author_across_topics_and_decades_stay_one_person(two_people):
    daniel, _, _, north, south = two_people
    # One co-author of the early circle also on a late work: the two circles are one life.
    work_by([daniel, north[0], south[0]], FOLDS[4], year=2020, topics=["Protein folding"])
    work_by([daniel, north[0], south[1]], ICE[5], year=2021, topics=["Protein folding"])
    assert split_records([daniel.pk]) == 0


def test_a_record_with_few_works_is_not_checked():
    daniel = person("Daniel Okafor")
    north, south = circle(NORTH[:3]), circle(SOUTH[:3])
    works_with(daniel, north, ICE[:2], first_year=1988, topic="Glaciology")
    works_with(daniel, south, FOLDS[:1], first_year=2016, topic="Protein folding")
    assert split_records([daniel.pk]) == 0


def test_a_new_check_supersedes_the_open_proposal_only_when_the_groups_change(two_people):
    daniel, old, new, _, south = two_people
    split_records([daniel.pk])
    assert split_records([daniel.pk]) == 0  # the same groups: the proposal stands
    later = works_with(daniel, south, FOLDS[4:], first_year=2020, topic="Protein folding")
    assert split_records([daniel.pk]) == 1
    superseded = SplitProposal.objects.get(status=SplitProposal.Status.SUPERSEDED)
    current = SplitProposal.objects.get(status=SplitProposal.Status.OPEN)
    assert groups_of(superseded)[1] == {w.pk for w in new}
    assert {w.pk for w in new + later} in groups_of(current)


def test_a_split_kept_whole_is_not_proposed_again_unless_another_person_appears(two_people):
    daniel, _, _, _, south = two_people
    split_records([daniel.pk])
    SplitProposal.objects.update(status=SplitProposal.Status.KEPT_WHOLE)
    works_with(daniel, south, FOLDS[4:], first_year=2020, topic="Protein folding")
    assert split_records([daniel.pk]) == 0  # the same two people, one more work
    third = circle(["Aroha Ngata", "Tamati Wiremu", "Hemi Parata", "Mere Tane", "Rawiri Kora"])
    third += circle(["Kiri Hohaia", "Wiremu Tipene", "Ana Pomare"])
    titles = [
        "Coastal dune migration in Aotearoa",
        "Storm surge records in estuary cores",
        "Barrier spit growth after cyclones",
        "Shingle beach profiles on exposed coasts",
    ]
    works_with(daniel, third, titles, first_year=1960, topic="Coastal geomorphology")
    assert split_records([daniel.pk]) == 1
    assert len(SplitProposal.objects.get(status=SplitProposal.Status.OPEN).groups) == 3


def test_resolving_the_block_checks_its_records(two_people):
    daniel = two_people[0]
    report = resolve_block(daniel.name_block)
    assert report.splits == 1
    assert SplitProposal.objects.filter(author=daniel, status="open").count() == 1
    assert resolve_block(daniel.name_block).splits == 0

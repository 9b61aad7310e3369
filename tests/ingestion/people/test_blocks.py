"""A name block weighed again: provisional records folded, record pairs raised as candidates."""

import pytest

from catalogue.models import AuditEvent, Authorship, LinkConstraint, MergeCandidate, Source
from ingestion.people.blocks import resolve_block
from tests.ingestion.people.builders import circle, person, work_by

pytestmark = pytest.mark.django_db

GLACIERS = "Glaciology"
PROTEINS = "Protein folding"


@pytest.fixture
def colleagues():
    return circle(["Henrik Ostberg", "Lucia Ferraz", "Tomasz Wierzbicki"])


def shared_work(maria, other, colleagues):
    """Two records of one person (an OpenAlex split): works with the same co-authors."""
    henrik, lucia, tomasz = colleagues
    work_by([maria, henrik, lucia], "Meltwater routing under alpine glaciers", topics=[GLACIERS])
    work_by([henrik, maria, tomasz], "Basal sliding of temperate glaciers", topics=[GLACIERS])
    work_by([other, lucia, henrik], "Supraglacial lakes and meltwater drainage", topics=[GLACIERS])
    work_by([tomasz, other], "Calving fronts of tidewater glaciers", year=2021, topics=[GLACIERS])


def test_two_ids_of_one_person_become_one_candidate_with_its_evidence(colleagues):
    maria, other = person("Maria Quintero"), person("M. Quintero")
    shared_work(maria, other, colleagues)
    report = resolve_block(maria.name_block)
    assert report.candidates == 1
    candidate = MergeCandidate.objects.get()
    assert candidate.kind == MergeCandidate.Kind.AUTHOR
    assert candidate.status == MergeCandidate.Status.OPEN
    assert {candidate.author_a_id, candidate.author_b_id} == {maria.pk, other.pk}
    assert "shared co-author" in candidate.reason
    assert 0.5 <= candidate.score <= 1.0
    # Records with ids are never merged by the engine: only ids (one ORCID) prove it.
    maria.refresh_from_db(), other.refresh_from_db()
    assert maria.merged_into_id is None and other.merged_into_id is None


def test_namesakes_with_nothing_in_common_are_not_raised():
    first, second = person("Maria Quintero"), person("Maria Quintero")
    one = circle(["Henrik Ostberg", "Lucia Ferraz"])
    two = circle(["Kenji Watanabe", "Amara Obi"])
    work_by([first, *one], "Meltwater routing under alpine glaciers", year=1996, topics=[GLACIERS])
    work_by([first, one[0]], "Basal sliding of temperate glaciers", year=1998, topics=[GLACIERS])
    work_by([second, *two], "Chaperones and misfolded proteins", year=2021, topics=[PROTEINS])
    work_by([two[1], second], "Folding kinetics of small domains", year=2022, topics=[PROTEINS])
    report = resolve_block(first.name_block)
    weak = MergeCandidate.objects.filter(score__gte=0.5)
    assert report.candidates == 0
    assert not weak.exists()


def test_a_staff_cannot_link_keeps_the_pair_from_being_raised(colleagues):
    maria, other = person("Maria Quintero"), person("M. Quintero")
    shared_work(maria, other, colleagues)
    LinkConstraint.objects.create(
        kind=LinkConstraint.Kind.CANNOT_LINK,
        author=other,
        other_author=maria,
        source=Source.STAFF,
    )
    assert resolve_block(maria.name_block).candidates == 0
    assert not MergeCandidate.objects.exists()


def test_a_pair_is_raised_once_whatever_its_decision(colleagues):
    maria, other = person("Maria Quintero"), person("M. Quintero")
    shared_work(maria, other, colleagues)
    assert resolve_block(maria.name_block).candidates == 1
    assert resolve_block(maria.name_block).candidates == 0
    MergeCandidate.objects.update(status=MergeCandidate.Status.KEPT_APART)
    assert resolve_block(maria.name_block).candidates == 0
    assert MergeCandidate.objects.count() == 1


def test_a_pair_raised_before_in_the_other_order_is_not_raised_again(colleagues):
    maria, other = person("Maria Quintero"), person("M. Quintero")
    shared_work(maria, other, colleagues)
    low, high = sorted([maria.pk, other.pk])
    MergeCandidate.objects.create(
        kind=MergeCandidate.Kind.AUTHOR, author_a_id=high, author_b_id=low, reason="earlier"
    )
    assert resolve_block(maria.name_block).candidates == 0
    assert MergeCandidate.objects.count() == 1


def test_a_provisional_record_is_folded_into_the_record_the_evidence_puts_it_with(colleagues):
    maria = person("Maria Quintero")
    loose = person("M. Quintero", openalex=False)  # made here from bare names: no id, no owner
    shared_work(maria, loose, colleagues)
    moved = set(Authorship.objects.filter(author=loose).values_list("pk", flat=True))
    report = resolve_block(maria.name_block)
    loose.refresh_from_db()
    assert loose.merged_into_id == maria.pk
    assert report.folded == {loose.pk, maria.pk}
    assert not Authorship.objects.filter(author=loose).exists()
    assert set(Authorship.objects.filter(author=maria).values_list("pk", flat=True)) >= moved
    event = AuditEvent.objects.get(action="identity.fold")
    assert event.target_id == str(loose.pk)
    assert event.data["into"] == maria.pk
    assert sorted(event.data["moved"]) == sorted(moved)
    assert not MergeCandidate.objects.filter(status=MergeCandidate.Status.OPEN).exists()


def test_a_record_someone_decided_on_is_not_folded_but_raised(colleagues):
    maria = person("Maria Quintero")
    kept = person("M. Quintero", openalex=False)
    shared_work(maria, kept, colleagues)
    work = Authorship.objects.filter(author=kept).first().work
    LinkConstraint.objects.create(
        kind=LinkConstraint.Kind.MUST_LINK, author=kept, work=work, source=Source.CLAIM
    )
    report = resolve_block(maria.name_block)
    kept.refresh_from_db()
    assert kept.merged_into_id is None
    assert report.folded == set()
    assert report.candidates == 1
    assert not AuditEvent.objects.filter(action="identity.fold").exists()


def test_a_provisional_record_with_nothing_in_common_stays(colleagues):
    maria = person("Maria Quintero")
    loose = person("M. Quintero", openalex=False)
    henrik, lucia, _ = colleagues
    strangers = circle(["Kenji Watanabe", "Amara Obi"])
    work_by([maria, henrik, lucia], "Meltwater routing under alpine glaciers", year=1996)
    work_by([loose, *strangers], "Chaperones and misfolded proteins", year=2021)
    assert resolve_block(maria.name_block).folded == set()
    loose.refresh_from_db()
    assert loose.merged_into_id is None

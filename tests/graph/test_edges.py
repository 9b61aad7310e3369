"""Co-author edges: the full rebuild on a known graph, and the incremental update against it."""

import pytest

from catalogue.models import Authorship
from catalogue.signals import authors_changed
from graph import edges, services
from graph.models import CoauthorEdge
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.graph.conftest import link

pytestmark = pytest.mark.django_db

EXPECTED = {
    ("ada", "bob", 2, 2018, 2019),
    ("ada", "cy", 1, 2018, 2018),
    ("bob", "cy", 2, 2018, 2020),
    ("ada", "dee", 1, 2021, 2021),
    ("eve", "fay", 1, 2022, 2022),
}


def rebuilt(known) -> set[tuple]:
    edges.edges_rebuild()
    return known.edges()


def test_the_rebuild_counts_joint_works_and_years(known):
    assert known.edges() == EXPECTED


def test_pairs_are_stored_once_lower_id_first(known):
    for edge in CoauthorEdge.objects.all():
        assert edge.author_low_id < edge.author_high_id


def test_an_incremental_update_after_new_works_equals_a_rebuild(known):
    known.people["gus"] = gus = AuthorFactory(display_name="Gus Example")
    new = WorkFactory(title="New work", publication_year=2024)
    link(new, [known.people["ada"], known.people["eve"], gus])
    edges.edges_refresh([known.pk("ada"), known.pk("eve"), gus.pk])
    incremental = known.edges()
    assert ("ada", "eve", 1, 2024, 2024) in incremental
    assert incremental == rebuilt(known)


def test_an_incremental_update_after_a_removed_authorship_equals_a_rebuild(known):
    Authorship.objects.filter(work=known.works["w1"], author=known.people["cy"]).delete()
    edges.edges_refresh([known.pk("cy")])
    incremental = known.edges()
    assert ("ada", "cy", 1, 2018, 2018) not in incremental
    assert ("bob", "cy", 1, 2020, 2020) in incremental
    assert incremental == rebuilt(known)


def test_merged_authors_and_works_leave_the_graph(known):
    bob, cy = known.people["bob"], known.people["cy"]
    cy.merged_into = bob
    cy.save(update_fields=["merged_into"])
    known.works["w4"].merged_into = known.works["w2"]
    known.works["w4"].save(update_fields=["merged_into"])
    edges.edges_refresh([bob.pk, cy.pk, known.pk("ada"), known.pk("dee")])
    incremental = known.edges()
    assert not any("cy" in pair[:2] or "dee" in pair[:2] for pair in incremental)
    assert incremental == rebuilt(known)


def test_a_deleted_author_has_no_edges(known):
    dee = known.people["dee"]
    dee.is_deleted = True
    dee.save(update_fields=["is_deleted"])
    edges.edges_refresh([dee.pk])
    assert not CoauthorEdge.objects.filter(author_high_id=dee.pk).exists()
    assert not CoauthorEdge.objects.filter(author_low_id=dee.pk).exists()


def test_refreshing_the_same_works_twice_changes_nothing(known):
    new = WorkFactory(title="New work", publication_year=2024)
    link(new, [known.people["ada"], known.people["bob"]])
    edges.edges_refresh([known.pk("ada"), known.pk("bob")], work_ids=[new.pk])
    once = known.edges()
    assert ("ada", "bob", 3, 2018, 2024) in once
    edges.edges_refresh([known.pk("ada"), known.pk("bob")], work_ids=[new.pk])
    edges.edges_refresh([known.pk("ada"), known.pk("bob")])
    assert known.edges() == once == rebuilt(known)


def test_a_batch_of_new_works_adds_to_its_own_pairs_and_rewrites_no_other(known):
    from datetime import timedelta

    from django.utils import timezone

    long_ago = timezone.now() - timedelta(days=30)
    CoauthorEdge.objects.update(updated_at=long_ago)
    new = WorkFactory(title="New work", publication_year=2016)
    link(new, [known.people["ada"], known.people["eve"], known.people["cy"]])
    written = edges.edges_refresh(
        [known.pk("ada"), known.pk("eve"), known.pk("cy")], work_ids=[new.pk]
    )
    assert written == 3
    touched = {
        (e.author_low_id, e.author_high_id)
        for e in CoauthorEdge.objects.filter(updated_at__gt=long_ago)
    }
    assert len(touched) == 3
    incremental = known.edges()
    assert ("ada", "cy", 2, 2016, 2018) in incremental
    assert ("ada", "eve", 1, 2016, 2016) in incremental
    assert incremental == rebuilt(known)


def test_a_work_whose_year_or_authors_changed_is_recounted_by_its_id(known):
    w1 = known.works["w1"]
    w1.publication_year = 2025
    w1.save(update_fields=["publication_year"])
    Authorship.objects.filter(work=w1, author=known.people["cy"]).delete()
    AuthorshipFactory(work=w1, author=known.people["eve"], position=3)
    edges.edges_refresh([known.pk("cy"), known.pk("eve")], work_ids=[w1.pk])
    incremental = known.edges()
    assert ("ada", "bob", 2, 2019, 2025) in incremental
    assert ("ada", "eve", 1, 2025, 2025) in incremental
    assert ("bob", "cy", 1, 2020, 2020) in incremental
    assert incremental == rebuilt(known)


def test_a_work_deleted_outright_is_subtracted(known):
    w3 = known.works["w3"]
    w3_id = w3.pk
    w3.delete()
    edges.edges_refresh([known.pk("bob"), known.pk("cy")], work_ids=[w3_id])
    incremental = known.edges()
    assert ("bob", "cy", 1, 2018, 2018) in incremental
    assert incremental == rebuilt(known)


def test_an_import_batch_updates_the_edges_and_renews_the_slice_version(known):
    ada = known.pk("ada")
    before = services.version(ada)
    new = WorkFactory(title="Another", publication_year=2024)
    link(new, [known.people["ada"], known.people["fay"]])
    authors_changed.send(sender=None, author_ids=[ada, known.pk("fay")])
    assert ("ada", "fay", 1, 2024, 2024) in known.edges()
    assert services.version(ada) != before


def test_the_rebuild_command_reports_the_count(known, capsys):
    from django.core.management import call_command

    CoauthorEdge.objects.all().delete()
    call_command("rebuild_graph")
    assert "5 co-author edges" in capsys.readouterr().out
    assert known.edges() == EXPECTED


@pytest.mark.parametrize("by", ["authors", "works"])
def test_both_ways_of_naming_a_change_equal_a_rebuild(known, by):
    ada, cy, eve = known.people["ada"], known.people["cy"], known.people["eve"]
    # A re-imported w1 lost Cy and gained Eve; Dee's record was merged into Ada's.
    Authorship.objects.filter(work=known.works["w1"], author=cy).delete()
    AuthorshipFactory(work=known.works["w1"], author=eve, position=3)
    dee = known.people["dee"]
    dee.merged_into = ada
    dee.save(update_fields=["merged_into"])
    touched = [ada.pk, known.pk("bob"), cy.pk, eve.pk, dee.pk]
    works = [known.works["w1"].pk, known.works["w4"].pk] if by == "works" else None
    edges.edges_refresh(touched, works)
    incremental = known.edges()
    assert ("ada", "eve", 1, 2018, 2018) in incremental
    assert not any("dee" in pair[:2] for pair in incremental)
    assert incremental == rebuilt(known)


def raw_edges() -> set[tuple]:
    return set(CoauthorEdge.objects.values_list("author_low_id", "author_high_id", "joint_works"))


def test_a_curation_decision_updates_the_edges(known, django_capture_on_commit_callbacks):
    import curation

    dee = known.people["dee"]
    with django_capture_on_commit_callbacks(execute=True):
        new = curation.author_split(
            author=dee, work_ids=[known.works["w4"].pk], actor=None, new_name="Dee Two"
        )
    after = raw_edges()
    assert (known.pk("ada"), dee.pk, 1) not in after
    assert (known.pk("ada"), new.pk, 1) in after
    edges.edges_rebuild()
    assert after == raw_edges()


def test_an_empty_list_of_works_changes_no_edge(known):
    Authorship.objects.filter(work=known.works["w3"]).delete()
    assert edges.edges_refresh([known.pk("bob"), known.pk("cy")], work_ids=[]) == 0
    assert known.edges() == EXPECTED


def test_an_author_record_marked_deleted_names_the_authors_works(known, monkeypatch):
    from ingestion.ingest.author_records import ingest_authors
    from ingestion.records import AuthorRecord

    dee = known.people["dee"]
    dee.openalex_id = "A999"
    dee.save(update_fields=["openalex_id"])
    record = AuthorRecord(
        source="openalex", external_id="A999", display_name="Dee", openalex_id="A999"
    )
    assert ingest_authors([({"id": "A999"}, record)]).work_ids == set()  # nothing moved
    gone = AuthorRecord(
        source="openalex",
        external_id="A999",
        display_name="Deleted Author",
        openalex_id="A999",
        is_deleted=True,
    )
    result = ingest_authors([({"id": "A999", "deleted": True}, gone)])
    assert result.work_ids == {known.works["w4"].pk}
    edges.edges_refresh(result.author_ids, result.work_ids)
    assert ("ada", "dee", 1, 2021, 2021) not in known.edges()
    assert known.edges() == rebuilt(known)


@pytest.mark.django_db(transaction=True)
def test_an_import_counts_the_edges_of_the_works_it_wrote():
    from pathlib import Path

    from catalogue.models import Work
    from ingestion.importing.dispatch import import_run_create
    from ingestion.importing.execution import import_run_execute

    sent = []

    def listener(sender, author_ids=(), work_ids=None, **kwargs):
        sent.append(set(work_ids))

    demo = Path(__file__).parents[2] / "devtools" / "demo" / "openalex" / "works.json"
    authors_changed.connect(listener, dispatch_uid="test-listener")
    try:
        run = import_run_create(
            source="openalex", kind="file", parameters={"paths": [str(demo)]}, queue=False
        )
        import_run_execute(run_id=run.pk)
    finally:
        authors_changed.disconnect(dispatch_uid="test-listener")
    assert set().union(*sent) == set(Work.objects.values_list("pk", flat=True))
    incremental = set(CoauthorEdge.objects.values_list("author_low", "author_high", "joint_works"))
    assert incremental
    edges.edges_rebuild()
    assert incremental == raw_edges()


def test_a_byline_past_the_limit_makes_no_edges_and_one_at_it_does():
    at_limit, past_limit = WorkFactory(publication_year=2020), WorkFactory(publication_year=2021)
    names = [AuthorFactory() for _ in range(edges.MAX_BYLINE + 1)]
    for position, author in enumerate(names):
        AuthorshipFactory(work=past_limit, author=author, position=position)
        if position < edges.MAX_BYLINE:
            AuthorshipFactory(work=at_limit, author=author, position=position)

    services.edges_update([a.pk for a in names], [at_limit.pk, past_limit.pk])

    pairs = edges.MAX_BYLINE * (edges.MAX_BYLINE - 1) // 2
    incremental = raw_edges()
    assert len(incremental) == pairs  # the long byline added no pair, nor a joint work
    assert {row[2] for row in incremental} == {1}
    edges.edges_rebuild()
    assert raw_edges() == incremental

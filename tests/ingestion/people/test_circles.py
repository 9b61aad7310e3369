"""Circles read from the records held: whom a byline's co-authors' records wrote with."""

import pytest
from django.db import connection

from catalogue.models import Author
from identity import Byline
from identity import evidence as weighing
from identity.circles import HUB
from ingestion.people import matching
from ingestion.people.circles import records_held, with_circles
from ingestion.people.matching import place
from ingestion.people.records import record_key
from tests.ingestion.people.builders import circle, person, work_by

pytestmark = pytest.mark.django_db

FIELD = "Strongly correlated electrons"
VERMONT = "Department of Physics, University of Vermont"


def _newcomer(coauthors):
    return Byline(
        id="new:0",
        name="W. Wang",
        work_id="w-new",
        coauthors=tuple(a.display_name for a in coauthors),
        coauthor_ids=tuple(record_key(a.pk) for a in coauthors),
        topics=("openalex:strongly-correlated-electrons",),
        year=2016,
    )


def test_a_byline_learns_whom_its_co_authors_records_wrote_with():
    wei, lisa, nora, ivo = circle(["Wei Wang", "Lisa Brandt", "Nora Quist", "Ivo Pell"])
    work_by([wei, lisa], "Spin liquids on the kagome lattice")
    work_by([nora, lisa], "Thermal Hall effect in frustrated magnets")
    work_by([ivo, nora], "Nematic order in iron pnictides")
    plain = Byline("bare", "W. Wang", "w-other")

    found = with_circles([_newcomer([nora]), plain])

    assert found[0].circle_ids == tuple(sorted([record_key(ivo.pk), record_key(lisa.pk)]))
    assert found[1] is plain  # no co-author held here: nothing to read


def test_a_record_that_wrote_with_everyone_ties_nobody_together():
    lisa, nora = circle(["Lisa Brandt", "Nora Quist"])
    crowd = circle([f"Member {n}" for n in range(HUB + 1)])
    work_by([nora, *crowd], "A large collaboration's detector paper")
    work_by([lisa, crowd[0]], "A small paper")

    found = with_circles([_newcomer([nora, lisa])])

    assert found[0].circle_ids == (record_key(crowd[0].pk),)  # through Lisa alone


def test_the_records_held_are_counted_or_estimated_from_fresh_statistics():
    circle(["Lisa Brandt", "Nora Quist"])
    if connection.vendor == "postgresql":  # the planner's estimate, once it has statistics
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Author._meta.db_table}")
    assert records_held() == Author.objects.count() >= 2


def test_a_bare_name_on_a_partner_groups_work_goes_to_the_person_its_circle_points_to(
    monkeypatch,
):
    """Two records named Wei Wang in one field; the newcomer's co-authors never wrote
    with either, but they wrote with one Wei Wang's co-authors."""
    monkeypatch.setattr(matching, "records_held", lambda: 10_000)  # as in a corpus
    home, away = person("Wei Wang"), person("Wei Wang")
    lisa, otto, mia, hugo, nora, ivo = circle(
        ["Lisa Brandt", "Otto Kerner", "Mia Sato", "Hugo Lund", "Nora Quist", "Ivo Pell"]
    )
    for year in (2011, 2012, 2013):
        work_by([home, lisa, otto], f"Kagome magnets {year}", year=year, topics=[FIELD])
        work_by([away, mia, hugo], f"Cuprate transport {year}", year=year, topics=[FIELD])
    work_by([nora, lisa], "Thermal Hall effect in frustrated magnets", year=2014)
    work_by([ivo, lisa, nora], "Spinon Fermi surfaces", year=2015)
    work_by([ivo, otto], "Quantum oscillations in insulators", year=2016)

    placed = place([_newcomer([nora, ivo])], [], {}).placements["new:0"]
    assert placed.author_id == home.pk
    assert "each other's co-authors" in placed.evidence

    monkeypatch.setattr(weighing, "CIRCLE_CAP", 0.0)
    assert place([_newcomer([nora, ivo])], [], {}).placements["new:0"].author_id != home.pk

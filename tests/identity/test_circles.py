"""Co-authors who wrote with the other side's co-authors: circles and what they weigh."""

from dataclasses import replace

import pytest

from identity import Byline, resolve
from identity import evidence as weighing
from identity.circles import HUB, circle_of, with_coauthor_ids
from identity.evidence import profile_of, weigh
from identity.keys import Frequencies
from tests.identity.works import work_bylines

FIELD = ("cond-mat.str-el", "cond-mat.supr-con")


def _work(number, names, year=2015, affiliation=""):
    return work_bylines(number, names, FIELD, "Physical Review B", year, affiliation)


def test_a_circle_leaves_out_its_own_record_the_co_authors_and_hubs():
    wrote_with = {
        "a1": {"a2", "a3", "a9"},
        "a2": {"a1", "a4"},
        "hub": {f"x{n}" for n in range(HUB + 1)},
    }
    assert circle_of("a9", ["a1", "a2", "hub"], wrote_with) == ("a3", "a4")
    assert circle_of("", ["a5"], wrote_with) == ()


def test_each_byline_learns_whom_its_co_authors_records_wrote_with():
    bylines = [
        *_work(1, ["Wei Wang", "Lisa Brandt"]),
        *_work(2, ["Lisa Brandt", "Nora Quist"]),
        *_work(3, ["W. Wang", "Nora Quist"]),
    ]
    records = {"W1:0": 1, "W1:1": 2, "W2:0": 2, "W2:1": 3, "W3:0": 4, "W3:1": 3}
    linked = {b.id: b for b in with_coauthor_ids(bylines, records)}
    assert linked["W3:0"].coauthor_ids == ("~3",)
    assert linked["W3:0"].circle_ids == ("~2",)  # Nora Quist wrote with Lisa Brandt
    assert linked["W1:0"].circle_ids == ("~3",)
    assert linked["W2:0"].circle_ids == ("~4",)  # not its own record, nor Nora's


def _sides(circle_size=3):
    a = replace(
        profile_of(Byline("a", "Wei Wang", "W1", coauthors=("Lisa Brandt",))),
        coauthor_ids={"a2"},
        circle_ids={"a3"},
    )
    b = replace(
        profile_of(Byline("b", "Wei Wang", "W2", coauthors=("Nora Quist",))),
        coauthor_ids={"a3"},
        circle_ids={"a2", *(f"x{n}" for n in range(circle_size - 1))},
    )
    return a, b


def test_links_between_circles_weigh_by_how_far_they_beat_chance():
    a, b = _sides()
    unknown = weigh(a, b, Frequencies(), explain=True)
    known = weigh(a, b, Frequencies(records=10_000), explain=True)
    assert known.logit == pytest.approx(unknown.logit + weighing.CIRCLE_CAP)
    assert "co-authors wrote with each other's co-authors (2)" in known.reasons
    assert not any("each other's co-authors" in r for r in unknown.reasons)


def test_links_a_circle_of_most_records_would_make_by_chance_add_nothing():
    a, b = _sides(circle_size=4_000)
    assert weigh(a, b, Frequencies(records=10_000)).logit == weigh(a, b, Frequencies()).logit


def _partner_world():
    """Two people named Wei Wang in one field, and a work of one of them written with a
    partner group: none of its co-authors wrote with Wei Wang before, but they wrote
    with his co-authors. (Among a dozen records any two circles meet; the records
    held are given as a corpus's.)"""
    works = []
    home = "Department of Physics, University of Vermont"
    for number in range(1, 5):
        works += _work(number, ["Wei Wang", "Lisa Brandt", "Otto Kerner"], 2010 + number, home)
    for number in range(5, 9):
        works += _work(number, ["Wei Wang", "Mia Sato", "Hugo Lund"], 2010 + number)
    works += _work(9, ["Nora Quist", "Lisa Brandt"], 2014)
    works += _work(10, ["Ivo Pell", "Lisa Brandt", "Nora Quist"], 2015)
    works += _work(11, ["Ivo Pell", "Otto Kerner"], 2016)
    works += _work(12, ["W. Wang", "Nora Quist", "Ivo Pell"], 2016)
    return works


def _record_of(resolution, byline_id):
    return next(set(c) for c in resolution.clusters if byline_id in c)


def test_a_work_with_a_partner_group_joins_the_person_its_circle_points_to(monkeypatch):
    resolution = resolve(_partner_world(), records=10_000)
    assert "W1:0" in _record_of(resolution, "W12:0")
    assert "W5:0" not in _record_of(resolution, "W12:0")

    monkeypatch.setattr(weighing, "CIRCLE_CAP", 0.0)
    assert "W1:0" not in _record_of(resolve(_partner_world(), records=10_000), "W12:0")

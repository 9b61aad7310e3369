"""End to end: bylines in, people and candidates out."""

import pytest

from identity import Byline, resolve
from identity.evidence import profile_of, weigh
from identity.keys import Frequencies
from tests.identity.works import work_bylines

PHYSICS = ("cond-mat.stat-mech", "cond-mat.str-el")
BIOLOGY = ("q-bio.PE", "q-bio.QM")


_work = work_bylines


VERMONT = "Department of Physics, University of Vermont, Burlington, VT"
XALAPA = "Instituto de Ecología, Xalapa, Mexico"
WORKS = [
    # number, authors, topics, venue, year, affiliation, title
    (1, ["Adrian Del Maestro", "Marcel Franz"], PHYSICS, "PRB", 2008, VERMONT,
     "quantum criticality of superfluid helium in nanopores"),
    (2, ["A. Del Maestro", "M. Franz", "B. Rosenow"], PHYSICS, "PRL", 2010, VERMONT,
     "infinite randomness criticality in superconducting nanowires"),
    (3, ["Del Maestro, A.", "Bernd Rosenow"], PHYSICS, "PRB", 2011, "",
     "superfluid helium nanopores luttinger liquid"),
    (4, ["Adrian Maestro", "Ian Affleck"], PHYSICS, "PRB", 2012, VERMONT,
     "helium luttinger liquid nanopores quantum monte carlo"),
    # A namesake in another field, another place, another time.
    (5, ["A. Del Maestro", "Carla Ortiz"], BIOLOGY, "Ecology Letters", 1981, XALAPA,
     "pollination networks of orchids"),
    # Two people who share a surname and an initial in one field.
    (6, ["Andrew T. Wilson", "Helen Miles"], PHYSICS, "PRB", 2015, VERMONT, "phonons in graphene"),
    (7, ["Andrew J. Wilson", "Zoe Grant"], PHYSICS, "PRB", 2015, "", "phonons in silicon"),
]  # fmt: skip


def _corpus():
    return [byline for work in WORKS for byline in _work(*work)]


def _person_of(resolution, byline_id):
    return next(set(c) for c in resolution.clusters if byline_id in c)


def test_name_variants_of_one_researcher_make_one_record():
    resolution = resolve(_corpus())
    assert _person_of(resolution, "W1:0") == {"W1:0", "W2:0", "W3:0", "W4:0"}


def test_a_namesake_in_another_field_and_decade_stays_apart():
    resolution = resolve(_corpus())
    assert _person_of(resolution, "W5:0") == {"W5:0"}


def test_different_middle_initials_stay_apart():
    resolution = resolve(_corpus())
    assert _person_of(resolution, "W6:0") == {"W6:0"}
    assert _person_of(resolution, "W7:0") == {"W7:0"}


def test_evidence_reads_as_reasons():
    bylines = {b.id: b for b in _corpus()}
    freq = Frequencies()
    for byline in bylines.values():
        freq.add(profile_of(byline))
    evidence = weigh(profile_of(bylines["W1:0"]), profile_of(bylines["W2:0"]), freq, explain=True)
    assert evidence.score > 0.9
    assert "initials agree" in evidence.reasons
    assert "1 shared co-author" in evidence.reasons
    assert any("Vermont" in reason for reason in evidence.reasons)
    apart = weigh(profile_of(bylines["W1:0"]), profile_of(bylines["W5:0"]), freq, explain=True)
    assert apart.score < 0.5


def test_the_recorded_arxiv_feed_for_del_maestro_gives_one_researcher(real_fixtures):
    from tests.identity.arxiv_feeds import feed_bylines

    # Every recorded feed: the others are the background a real corpus gives the statistics.
    bylines = feed_bylines(sorted((real_fixtures / "arxiv").rglob("*.xml")))
    his = {b.id for b in bylines if "maestro" in b.name.lower()}
    assert len(his) >= 10
    resolution = resolve(bylines)
    records = [set(c) & his for c in resolution.clusters if set(c) & his]
    assert records == [his]


def test_a_small_institute_says_more_than_a_shared_subject_can():
    """A place held by one byline in thousands outweighs the most that topics, venue,
    references and words together add, and a place most bylines hold says little."""
    from identity.evidence import SUBJECT_CAP
    from identity.keys import AFFILIATION_CAP

    freq = Frequencies()
    for number in range(4000):
        place = "Vermont" if number < 2 else "Everywhere"
        freq.add(profile_of(Byline(f"b{number}", "A. Smith", f"W{number}", affiliations=(place,))))
    rare = freq.byline_weight(freq.affiliation_words, "vermont", 0.0)
    frequent = freq.byline_weight(freq.affiliation_words, "everywhere", 0.0)
    assert rare == AFFILIATION_CAP > SUBJECT_CAP
    assert frequent < 0.5


def test_two_sides_printing_places_and_sharing_none_weigh_less():
    """Two bylines that each print a place, none shared, are likelier two people than
    two bylines of which one prints no place; and the reason says so."""
    from identity.evidence import PLACES_APART

    def byline(number, place):
        return Byline(
            f"b{number}", "A. Smith", f"W{number}", affiliations=(place,) if place else ()
        )

    bylines = [byline(1, VERMONT), byline(2, XALAPA), byline(3, "")]
    freq = Frequencies()
    for one in bylines:
        freq.add(profile_of(one))
    vermont, xalapa, nowhere = (profile_of(one) for one in bylines)
    apart = weigh(vermont, xalapa, freq, explain=True)
    unknown = weigh(vermont, nowhere, freq, explain=True)
    assert apart.logit == pytest.approx(unknown.logit - PLACES_APART)
    assert "no place in common" in apart.reasons and "no place in common" not in unknown.reasons

"""Reading and comparing personal names as bylines print them."""

import pytest

from identity.names import (
    EXACT,
    FULL,
    INCOMPATIBLE,
    INITIALS,
    VARIANT,
    block_key,
    compatible,
    fold,
    parse_name,
)

SAME_PERSON = [
    ("Andrew Wilson", "Andrew T. Wilson"),
    ("A. Del Maestro", "Adrian Del Maestro"),
    ("M. Drechsler", "MARTIN DRECHSLER"),
    ("M. Drechsler", "Martin Drechsler"),
    ("Pagiola, Stefano", "Stefano Pagiola"),
    ("C Tisdell", "Clem Tisdell"),
    ("Frank Vorhies", "Francis Vorhies"),
    ("J.W. Mearman", "Joseph Mearman"),
    ("JW MEARMAN", "Joseph W. Mearman"),
    ("P. W. S. Butcher", "Peter Butcher"),
    ("H. M. Al-Maneea", "Hayder Mahdi Abdullah Al-Maneea"),
    ("Dietrich Rebholz‐Schuhmann", "Dietrich Rebholz-Schuhmann"),
    ("Dietrich Rebholz-Schuhmann", "D. Schuhmann"),
    ("Michael Färber", "Michael Faerber"),
    ("Michael Färber", "Michael Farber"),
    ("P. Muller", "Mueller, P."),
    ("Frédéric Labrosse", "Frederic Labrosse"),
    ("Binar Kurnia Prahanı", "Binar Kurnia Prahani"),
    ("Ming-Wei Chang", "Mingwei Chang"),
    ("Ming-Wei Chang", "M.-W. Chang"),
    ("Drechsler M", "Martin Drechsler"),
    ("DRECHSLER, M.", "Martin Drechsler"),
    ("Adrian Del Maestro", "Adrian Maestro"),
    ("Adrian Del Maestro", "adrian del maestro"),
    ("Helen Cabot Miles", "Helen C. Miles"),
    ("Bill Smith", "W. Smith"),
    ("Jeff Dean", "Jeffrey Dean"),
    ("Jean-Pierre Sartre", "J.-P. Sartre"),
    ("Gómez Hernández, Camila", "C. Hernandez"),
    ("SE JOHNSON", "Steven Edward Johnson"),
    ("Дмитрий Иванов", "Dmitrii Ivanov"),
]

DIFFERENT_PEOPLE = [
    ("Andrew T. Wilson", "Andrew J. Wilson"),
    ("Martin Drechsler", "Mark Drechsler"),
    ("M.-W. Park", "M.-H. Park"),
    ("Jie Yang", "Jiena Yang"),
    ("Adrian Del Maestro", "Adrian Del Monte"),
    ("Andrea Rossi", "Andrew Rossi"),
    ("Ming-Wei Chang", "M.-H. Chang"),
]


@pytest.mark.parametrize(("left", "right"), SAME_PERSON)
def test_names_of_one_person_are_compatible_and_share_a_block(left, right):
    assert compatible(left, right) != INCOMPATIBLE
    assert compatible(right, left) != INCOMPATIBLE
    assert block_key(left) == block_key(right)


@pytest.mark.parametrize(("left", "right"), DIFFERENT_PEOPLE)
def test_names_that_disagree_are_incompatible(left, right):
    assert compatible(left, right) == INCOMPATIBLE


def test_levels_say_how_much_the_names_agree():
    assert compatible("Heather Piwowar", "Piwowar, Heather") == EXACT
    assert compatible("Andrew Wilson", "Andrew T. Wilson") == FULL
    assert compatible("Frank Vorhies", "Francis Vorhies") == VARIANT
    assert compatible("C Tisdell", "Clem Tisdell") == INITIALS
    assert compatible("J. Li", "J. Li") == INITIALS  # initials alone never make a full name


def test_surname_then_given_order_and_particles():
    name = parse_name("Del Maestro, Adrian")
    assert name.surname == "del maestro"
    assert [p.full for p in name.given] == ["adrian"]
    assert parse_name("Maria de la Cruz").surname == "de la cruz"
    assert parse_name("Ludwig van Beethoven").surname == "van beethoven"
    # A first word is a given name even when it is also a particle.
    assert parse_name("Van Anh Nguyen").surname == "nguyen"
    assert parse_name("Le Zhang").surname == "zhang"


def test_initials_in_all_their_printings():
    for printed in ("J.W. Mearman", "J. W. Mearman", "JW Mearman", "Mearman, J.W.", "Mearman JW"):
        name = parse_name(printed)
        assert name.surname == "mearman", printed
        assert [p.initial for p in name.given] == ["j", "w"], printed
        assert not any(p.full for p in name.given), printed


def test_capitals_keep_short_given_names_apart_from_initials():
    assert [p.full for p in parse_name("LI BO").given] == ["li"]
    assert [p.initial for p in parse_name("SE JOHNSON").given] == ["s", "e"]


def test_suffixes_are_not_names():
    assert parse_name("Frank J. Massey Jr.").surname == "massey"
    assert parse_name("Massey, Frank J., Jr.").surname == "massey"


def test_folding_drops_accents_and_transliterates():
    assert fold("Frédéric Færber Søren Łukasz") == "frederic faerber soren lukasz"
    assert fold("Иванов") == "ivanov"


def test_particle_variants_share_a_block():
    assert block_key("A. Del Maestro") == block_key("Adrian Maestro")
    assert block_key("J. van der Berg") == block_key("Berg, John")
    assert block_key("Smith, John") == block_key("J. Smith") == "smith_j"


def test_a_suffix_word_printed_first_is_initials():
    name = parse_name("JR Eckkapetom")
    assert name.surname == "eckkapetom"
    assert [part.initial for part in name.given] == ["j", "r"]
    assert [part.initial for part in parse_name("MD Rahman").given] == ["m", "d"]
    assert [part.initial for part in parse_name("Rahman, MD").given] == ["m", "d"]
    assert parse_name("Eckkapetom, JR").block == parse_name("J. R. Eckkapetom").block


def test_a_suffix_after_the_name_is_still_dropped():
    assert parse_name("Smith, Jr.").given == ()
    assert parse_name("Martin Luther King III").surname == "king"
    assert [part.initial for part in parse_name("Smith, John, Jr.").given] == ["j"]

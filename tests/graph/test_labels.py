"""The shorter ways to write a name when the whole one does not fit."""

import pytest

from graph.labels import forms, short_name, text_width


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("Amar Phanishayee", "A. Phanishayee"),
        ("Ada B. Lovelace", "A. B. Lovelace"),
        ("Ludwig van Beethoven", "L. van Beethoven"),
        ("Juan de la Cruz", "J. de la Cruz"),
        ("Martin Luther King Jr.", "M. L. King Jr."),
        ("Team Member 07", "T. Member 07"),
        ("Plato", "Plato"),
        ("王小明", "王小明"),
        ("(Anonymous) Contributor", "(Anonymous) Contributor"),
    ],
)
def test_a_short_name_is_initials_and_the_surname(name, short):
    assert short_name(name) == short


def test_a_label_is_tried_whole_then_on_two_lines_then_shorter():
    assert forms("Oluwaseun Guadalupe Ramakrishnan-Iyer", short="O. G. Ramakrishnan-Iyer") == [
        ("Oluwaseun Guadalupe Ramakri…",),
        ("Oluwaseun Guadalupe", "Ramakrishnan-Iyer"),
        ("O. G. Ramakrishnan-Iyer",),
        ("O. G. Ramakrish…",),
    ]
    assert forms("Scaling the training of very large neural networks") == [
        ("Scaling the training of…",),
        ("Scaling the training", "of very large…"),
        ("Scaling the tra…",),
        ("Scaling the", "training…"),
    ]
    assert forms("Ada Lovelace", short="A. Lovelace") == [
        ("Ada Lovelace",),
        ("Ada", "Lovelace"),
        ("A. Lovelace",),
    ]


def test_wide_letters_and_east_asian_characters_count_wider():
    assert text_width("mmmm", 10) > text_width("iiii", 10) == pytest.approx(4 * 0.62 * 10)
    assert text_width("王小明", 10) > text_width("abc", 10)
    assert text_width("Ada", 10, bold=True) > text_width("Ada", 10)

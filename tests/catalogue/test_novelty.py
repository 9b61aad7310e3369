"""Novelty over a corpus whose answer is known: what it compares against, and when it says nothing.

Twelve works on twelve subjects come first. Researcher A then writes two works that
repeat two of them and one on a subject nobody held before; researcher B writes
three works on subjects nobody held before and one that repeats an earlier work.
By the rule (a judged work is new when no earlier work scores 0.35 or more) A is
1 of 3 new and B 3 of 4.
"""

from datetime import date

import pytest

import similarity
from catalogue import novelty
from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorMetrics, Work
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db

SUBJECTS = [
    ("Glacier retreat in alpine valleys", "glacier ice melt retreat alpine valley moraine"),
    ("Sourdough starters and their yeasts", "sourdough yeast starter bread fermentation crumb"),
    ("Tidal energy from estuaries", "tidal turbine estuary current energy barrage"),
    ("Beekeeping and colony losses", "honeybee colony hive varroa mite winter loss"),
    ("Violin varnish and tone", "violin varnish spruce maple tone luthier"),
    ("Desert locust swarms", "locust swarm desert migration crop outbreak"),
    ("Printing presses of Venice", "printing press venice incunabula typeface printer"),
    ("Chess endgame tablebases", "chess endgame tablebase rook pawn retrograde"),
    ("Urban heat islands", "urban heat island asphalt canopy temperature"),
    ("Salt marsh restoration", "salt marsh cordgrass sediment restoration tide"),
    ("Railway timetable design", "railway timetable train headway junction delay"),
    ("Cheese ripening cultures", "cheese ripening rind mould culture cellar"),
]
NEW_SUBJECTS = [
    ("Quantum spin liquids", "frustrated lattice magnon spinon entanglement kagome"),
    ("Coral larvae settlement", "coral larvae settlement reef bleaching recruit"),
    ("Medieval ink provenance", "gall ink parchment scribe palimpsest scriptorium"),
    ("Volcanic ash and jet engines", "volcanic ash plume turbine aviation eruption"),
    ("Church bell founding", "bell bronze casting foundry clapper belfry"),
]


def work(subject, day, author, *, precision="day", year=None, **fields):
    title, words = subject
    made = WorkFactory(
        title=title,
        abstract=f"{words}.",
        publication_date=day,
        publication_year=day.year if day else year,
        publication_date_precision=precision,
        **fields,
    )
    AuthorshipFactory(work=made, author=author)
    return made


def repeat(subject):
    """The same subject in nearly the same words."""
    title, words = subject
    return (f"{title}, revisited", words)


@pytest.fixture
def corpus():
    elder, a, b = AuthorFactory(), AuthorFactory(), AuthorFactory()
    for n, subject in enumerate(SUBJECTS):
        work(subject, date(2000 + n, 6, 1), elder)
    a_works = [
        work(repeat(SUBJECTS[0]), date(2015, 3, 2), a),
        work(repeat(SUBJECTS[4]), date(2016, 3, 2), a),
        work(NEW_SUBJECTS[0], date(2017, 3, 2), a),
        # before ten works were held here: left out, whatever it says
        work(NEW_SUBJECTS[4], date(2003, 1, 5), a),
        work(("Untitled notes", "notes"), None, a),  # no date: left out
    ]
    b_works = [
        work(NEW_SUBJECTS[1], date(2015, 5, 5), b),
        work(NEW_SUBJECTS[2], date(2016, 5, 5), b),
        work(NEW_SUBJECTS[3], date(2017, 5, 5), b),
        work(repeat(SUBJECTS[8]), date(2018, 5, 5), b),
    ]
    similarity.similarities_compute_all()
    author_metrics_refresh(author_ids=[elder.pk, a.pk, b.pk])
    return a, b, a_works, b_works


def test_the_corpus_scores_as_it_was_written(corpus):
    _, _, a_works, b_works = corpus
    prior = dict(Work.objects.values_list("pk", "prior_similarity"))
    repeats = [a_works[0], a_works[1], b_works[3]]
    assert all(prior[w.pk] >= novelty.NOVELTY_THRESHOLD for w in repeats)
    fresh = [a_works[2], *b_works[:3]]
    assert all(prior[w.pk] < novelty.NOVELTY_THRESHOLD for w in fresh)


def test_a_researcher_who_repeats_earlier_works_scores_below_one_who_does_not(corpus):
    a, b, _, _ = corpus
    figures = dict(AuthorMetrics.objects.values_list("author_id", "novelty"))
    assert figures[a.pk] == round(100 * 1 / 3, 1) == 33.3
    assert figures[b.pk] == round(100 * 3 / 4, 1) == 75.0
    assert figures[b.pk] - figures[a.pk] > 40


def test_the_basis_counts_what_is_judged_and_what_is_left_out(corpus):
    a, b, _, _ = corpus
    basis = novelty.novelty_basis(a.pk)
    assert (basis.new, basis.judged, basis.too_few_earlier, basis.unknown) == (1, 3, 1, 1)
    assert basis.percent == 33.3
    against = basis.comparison
    # every dated work with words: twelve subjects, A's four and B's four
    assert (against.works, against.first_year, against.last_year) == (20, 2000, 2018)
    # the tenth earliest is the 2009 subject (A's 2003 work is the fourth)
    assert against.judged_after == date(2008, 6, 1)
    text = basis.description
    assert text.startswith("1 of 3 works judged resemble no work held here published before")
    assert "at least 10 earlier works each" in text and "out of the 20 works" in text
    assert "(2000–2018)" in text and "in any field" in text
    assert "Left out: 1 work with fewer than 10 earlier works here; 1 work without a date" in text
    assert novelty.novelty_basis(b.pk).description.startswith("3 of 4 works judged")


def test_a_too_small_comparison_set_gives_no_figure():
    author, elder = AuthorFactory(), AuthorFactory()
    for n, subject in enumerate(SUBJECTS[:5]):
        work(subject, date(2000 + n, 6, 1), elder)
    work(NEW_SUBJECTS[0], date(2020, 1, 2), author)
    similarity.similarities_compute_all()
    author_metrics_refresh(author_ids=[author.pk])

    assert AuthorMetrics.objects.get(author=author).novelty is None
    basis = novelty.novelty_basis(author.pk)
    assert basis.percent is None and basis.judged == 0 and basis.too_few_earlier == 1
    assert basis.comparison.judged_after is None
    assert basis.description.startswith(
        "No figure: none of these works had 10 earlier works held here to compare with"
    )
    assert "the site holds 6 works with a date and a title or abstract (2000–2020)" in (
        basis.description
    )


def test_works_not_compared_yet_give_no_figure_and_say_so():
    author = AuthorFactory()
    work(NEW_SUBJECTS[0], date(2020, 1, 2), author)  # no similarity run
    author_metrics_refresh(author_ids=[author.pk])
    basis = novelty.novelty_basis(author.pk)
    assert basis.percent is None and basis.unknown == 1
    assert basis.description.startswith("No figure: none of these works has a date")


@pytest.mark.parametrize(
    ("day", "precision", "judged"),
    [
        (date(2010, 12, 31), "day", False),  # the day the tenth earlier work may have appeared
        (date(2011, 1, 1), "day", True),
        (date(2010, 12, 1), "month", False),  # December 2010 may be its 31st
        (date(2011, 1, 1), "month", True),
        (date(2010, 1, 1), "year", False),
        (date(2011, 1, 1), "year", True),
        (None, "day", True),  # the bare year 2011
    ],
)
def test_a_work_is_judged_only_after_the_tenth_earlier_work_however_it_is_dated(
    day, precision, judged
):
    elder, author = AuthorFactory(), AuthorFactory()
    for n, subject in enumerate(SUBJECTS[:9]):
        work(subject, date(2000 + n, 6, 1), elder)
    work(SUBJECTS[9], date(2010, 1, 1), elder, precision="year")  # ends on 31 Dec 2010
    work(NEW_SUBJECTS[0], day, author, precision=precision, year=2011, prior_similarity=0.1)

    basis = novelty.novelty_bases([author.pk], fresh=True)[author.pk]
    assert basis.comparison.judged_after == date(2010, 12, 31)
    assert (basis.judged, basis.too_few_earlier) == ((1, 0) if judged else (0, 1))
    assert basis.percent == (100.0 if judged else None)

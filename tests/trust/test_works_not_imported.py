"""A record whose works the source counts but none of which is held here is not read as
a record with no dated work."""

from datetime import UTC, datetime

import pytest

from catalogue.models import Source
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from trust.scoring import Signals, score
from trust.selectors import author_signals


def evidence(result) -> dict[str, str]:
    return {item.key: item.evidence for group in result.components for item in group.items}


def test_works_counted_by_the_source_but_not_imported_are_said_to_be_so():
    signals = Signals(
        this_year=2026, source_works=33, source_name="OpenAlex", source_as_of="2025-06-08"
    )
    said = evidence(score(signals))
    expected = (
        "The works are not imported yet: OpenAlex counts 33 works as of 2025-06-08, none held here."
    )
    assert said["works"] == expected
    assert said["years_active"] == expected
    assert "publication year" not in " ".join(said.values())
    for key in ("citations", "venues", "recent_work"):
        assert said[key] == "Counted once the works are imported."


def test_the_points_stay_those_of_the_works_held_here():
    bare = score(Signals(this_year=2026))
    counted = score(Signals(this_year=2026, source_works=10_000, source_name="OpenAlex"))
    assert counted.score == bare.score


def test_some_works_held_are_counted_against_the_sources_count():
    said = evidence(
        score(Signals(this_year=2026, works=2, source_works=33, source_name="OpenAlex"))
    )
    assert said["works"] == "2 works held here of 33 per OpenAlex."
    assert said["years_active"] == "No work has a publication year."


def test_without_a_source_count_an_empty_record_says_no_work_is_held():
    said = evidence(score(Signals(this_year=2026)))
    assert said["years_active"] == "No work is held here."
    assert said["works"] == "0 works."


@pytest.mark.django_db
def test_the_signals_carry_the_sources_count_named_and_dated():
    author = AuthorFactory(
        counts_source=Source.OPENALEX,
        counts_as_of=datetime(2025, 6, 8, 21, 53, tzinfo=UTC),
        source_works_count=33,
    )
    signals = author_signals(author.pk)
    assert (signals.source_works, signals.source_name, signals.source_as_of) == (
        33,
        "OpenAlex",
        "2025-06-08",
    )
    AuthorshipFactory(author=author, work=WorkFactory(publication_year=2020))
    said = evidence(score(author_signals(author.pk)))
    assert said["works"].startswith("1 work held here of 33 per OpenAlex")
    assert said["years_active"] == "Works from 2020: 1 year active."

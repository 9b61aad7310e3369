"""A run of changes draws the kept parts it made stale once, at its end."""

import pytest

from pages import entries
from pages.drawing import drawing_deferred
from pages.models import WorkEntry
from tests.factories import WorkFactory

pytestmark = pytest.mark.django_db(transaction=True)  # drawing waits for commits


@pytest.fixture
def drawn(monkeypatch):
    """(work id, title) of each entry drawn, in order."""
    seen = []
    real = entries.draw

    def counting(work):
        seen.append((work.pk, work.title))
        return real(work)

    monkeypatch.setattr(entries, "draw", counting)
    return seen


def test_an_entry_changed_three_times_is_drawn_once_from_the_last_change(drawn):
    with drawing_deferred():
        work = WorkFactory(title="First title")
        for title in ("Second title", "Third title"):
            work.title = title
            work.save()
        assert drawn == []
        assert not WorkEntry.objects.filter(work=work).exists()
    assert drawn == [(work.pk, "Third title")]
    assert "Third title" in WorkEntry.objects.get(work=work).html


def test_without_a_deferral_each_change_is_drawn_when_it_commits(drawn):
    work = WorkFactory(title="First title")
    work.title = "Second title"
    work.save()
    assert drawn == [(work.pk, "First title"), (work.pk, "Second title")]


def test_a_nested_deferral_leaves_the_drawing_to_the_outer_one(drawn):
    with drawing_deferred():
        with drawing_deferred():
            work = WorkFactory(title="Inner")
        assert drawn == []
    assert drawn == [(work.pk, "Inner")]


def test_a_run_that_fails_draws_nothing(drawn):
    with pytest.raises(RuntimeError), drawing_deferred():
        WorkFactory(title="Never shown")
        raise RuntimeError("the run stopped")
    assert drawn == []

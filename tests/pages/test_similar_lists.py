"""A work's "More like this" list is drawn once, kept in the database, and drawn again
when its matches are stored anew or a work it lists changes what the list shows."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.models import WorkSimilarity
from pages import similar
from pages.models import SimilarList
from similarity.storing import _replace_links
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch):
    """The titles of the works each drawn list showed, one list a draw."""
    seen = []
    real = similar.draw

    def counting(links):
        seen.append([link.similar.title for link in links])
        return real(links)

    monkeypatch.setattr(similar, "draw", counting)
    return seen


@pytest.fixture
def pair():
    """A work whose list shows one match, with a venue and a named author."""
    work = WorkFactory(title="Quantum walks on graphs")
    other = WorkFactory(title="Random walks revisited", venue=VenueFactory(name="Physical Review"))
    AuthorshipFactory(work=other, author=AuthorFactory(display_name="Paul Dirac"), position=0)
    WorkSimilarity.objects.create(work=work, similar=other, score=0.8, reasons=[])
    return work, other


def section(client, work) -> str:
    response = client.get(work.get_absolute_url())
    assert response.status_code == 200
    body = response.content.decode()
    return body[
        body.index('<section class="more-like-this"') : body.index(
            "</section>", body.index('<section class="more-like-this"')
        )
    ]


def kept_html(work) -> str | None:
    row = SimilarList.objects.filter(work=work, generation=similar.generation()).first()
    return row.html if row else None


def test_a_list_is_drawn_once_and_kept_when_the_cache_is_emptied(client, pair, drawn):
    work, other = pair
    first = section(client, work)
    assert "Random walks revisited" in first and "Paul Dirac" in first
    assert kept_html(work) is not None
    cache.clear()
    assert section(client, work) == first
    assert drawn == [["Random walks revisited"]]


def test_the_kept_list_is_the_list_drawn_for_the_page(client, pair):
    work, _ = pair
    fresh = section(client, work)  # drawn by the page
    SimilarList.objects.all().delete()
    similar.lists_refresh([work.pk])  # drawn ahead
    cache.clear()
    assert section(client, work) == fresh
    assert kept_html(work) in fresh


def test_a_kept_list_spares_the_page_its_queries(client, pair):
    work, _ = pair
    client.get(work.get_absolute_url())  # drawn and kept
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        client.get(work.get_absolute_url())
    read = [q["sql"] for q in queries]
    assert not any('"publications_worksimilarity"."score"' in sql for sql in read)
    assert sum('"pages_similarlist"' in sql for sql in read) == 1


def test_a_list_is_drawn_again_when_its_matches_are_stored(
    client, pair, drawn, django_capture_on_commit_callbacks
):
    work, other = pair
    section(client, work)
    newer = WorkFactory(title="Walks on lattices")
    with django_capture_on_commit_callbacks(execute=True):
        _replace_links([work.pk], [(work.pk, newer.pk, 0.9, []), (work.pk, other.pk, 0.5, [])])
    assert drawn[-1] == ["Walks on lattices", "Random walks revisited"]  # drawn on commit
    cache.clear()
    shown = section(client, work)
    titles = re.findall(r'<h3 class="work-title"><a href="[^"]+">([^<]+)</a>', shown)
    assert titles == ["Walks on lattices", "Random walks revisited"]
    assert len(drawn) == 2  # read from the kept list


def test_stored_matches_forget_the_list_at_once(client, pair):
    work, other = pair
    section(client, work)
    _replace_links([work.pk], [])  # no commit hook runs: the list is only forgotten
    assert kept_html(work) is None
    cache.clear()
    assert "No similar works found yet" in section(client, work)


@pytest.mark.parametrize("change", ["title", "author", "venue", "merged", "deleted"])
def test_a_list_is_drawn_again_when_a_work_it_shows_changes(
    client, pair, drawn, change, django_capture_on_commit_callbacks
):
    work, other = pair
    section(client, work)
    with django_capture_on_commit_callbacks(execute=True):
        if change == "title":
            other.title = "Random walks, revisited again"
            other.save()
        elif change == "author":
            author = other.authorships.get().author
            author.display_name = "P. A. M. Dirac"
            author.save()
        elif change == "venue":
            other.venue.name = "Physical Review Letters"
            other.venue.save()
        elif change == "merged":
            other.merged_into = WorkFactory()
            other.save()
        else:
            other.delete()
    assert len(drawn) == 2  # drawn again once the change committed
    cache.clear()
    shown = section(client, work)
    assert len(drawn) == 2  # and the page reads it
    expected = {
        "title": "Random walks, revisited again",
        "author": "P. A. M. Dirac",
        "venue": "Physical Review Letters",
    }
    if change in expected:
        assert expected[change] in shown
    else:
        assert "Random walks revisited" not in shown
        assert "No similar works found yet" in shown


def test_a_name_added_to_a_listed_byline_shows(client, pair):
    work, other = pair
    section(client, work)
    AuthorshipFactory(work=other, author=AuthorFactory(display_name="Emmy Noether"), position=1)
    cache.clear()
    assert "Emmy Noether" in section(client, work)


def test_a_change_to_an_unlisted_work_keeps_the_list(client, pair, drawn):
    work, _ = pair
    section(client, work)
    stranger = WorkFactory(title="Unrelated")
    stranger.title = "Still unrelated"
    stranger.save()
    cache.clear()
    section(client, work)
    assert len(drawn) == 1


def test_a_match_saved_alone_shows(client, pair):
    work, _ = pair
    section(client, work)
    WorkSimilarity.objects.create(work=work, similar=WorkFactory(title="Added by hand"), score=0.9)
    cache.clear()
    assert "Added by hand" in section(client, work)


def test_a_list_of_another_generation_is_drawn_again(client, pair, drawn):
    work, _ = pair
    section(client, work)
    SimilarList.objects.update(generation="older", html="stale list")
    cache.clear()
    shown = section(client, work)
    assert "stale list" not in shown and "Random walks revisited" in shown
    assert len(drawn) == 2


def test_the_command_draws_the_missing_lists(pair, drawn):
    from django.core.management import call_command

    work, other = pair
    SimilarList.objects.all().delete()
    drawn.clear()
    call_command("draw_entries", verbosity=0)
    assert sorted(drawn) == [[], ["Random walks revisited"]]  # one list a visible work
    assert kept_html(work) is not None and "Random walks revisited" in kept_html(work)
    call_command("draw_entries", verbosity=0)  # nothing missing now
    assert len(drawn) == 2
    call_command("draw_entries", "--all", verbosity=0)
    assert len(drawn) == 4


def test_a_page_whose_keeping_is_refused_still_shows_the_list(client, pair, monkeypatch):
    from django.db import DatabaseError

    from pages import kept

    def refused(*args, **kwargs):
        raise DatabaseError("deadlock detected")

    work, _ = pair
    SimilarList.objects.all().delete()
    monkeypatch.setattr(kept, "_rows", refused)
    assert "Random walks revisited" in section(client, work)
    assert kept_html(work) is None

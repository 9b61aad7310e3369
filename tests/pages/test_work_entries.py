"""Work list entries are drawn once, kept in the database, and drawn again when stale."""

import pytest
from django.core.cache import cache
from django.core.management import call_command

from catalogue.models import Work
from pages import entries
from pages.models import ResearcherWorks, WorkEntry
from profiles.models import Profile
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    UserFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch):
    """The ids of the works whose entries were drawn, in order."""
    seen = []
    real = entries.draw

    def counting(work):
        seen.append(work.pk)
        return real(work)

    monkeypatch.setattr(entries, "draw", counting)
    return seen


def html(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_an_entry_is_drawn_once_and_kept_when_the_cache_is_emptied(client, drawn):
    author = AuthorFactory(display_name="Lise Meitner")
    work = WorkFactory(title="Disintegration of uranium")
    AuthorshipFactory(work=work, author=author)
    assert "Disintegration of uranium" in html(client, author.get_absolute_url())
    assert WorkEntry.objects.filter(work=work, generation=entries.generation()).exists()
    cache.clear()
    assert "Disintegration of uranium" in html(client, "/search/?q=uranium")
    html(client, author.get_absolute_url())
    assert drawn == [work.pk]


def test_the_page_author_is_marked_and_no_mark_is_left_in_the_page(client):
    author, other = AuthorFactory(display_name="Otto Hahn"), AuthorFactory()
    work = WorkFactory(title="Nuclear fission")
    AuthorshipFactory(work=work, author=other, position=0)
    AuthorshipFactory(work=work, author=author, position=1, evidence="OpenAlex author id")
    body = html(client, author.get_absolute_url())
    mine = f'href="{author.get_absolute_url()}" class="is-self" aria-current="page"'
    assert body.count(mine) == 1
    assert f'href="{other.get_absolute_url()}" class="is-self"' not in body
    assert "Why here: OpenAlex author id" in body
    assert "<!--self:" not in body and "<!--facts-->" not in body
    # The co-author's page marks the co-author, and says nothing of the other link.
    theirs = html(client, other.get_absolute_url())
    assert f'href="{other.get_absolute_url()}" class="is-self"' in theirs
    assert "Why here: OpenAlex author id" not in theirs


def test_a_record_text_cannot_pass_for_a_mark(client):
    author = AuthorFactory(display_name="Chien-Shiung Wu")
    forged = f"<!--self:{author.pk}--> parity <!--facts-->"
    work = WorkFactory(title=f"Beta decay {forged}", abstract=f"An abstract {forged} ends here.")
    AuthorshipFactory(work=work, author=author, evidence="ORCID")
    body = html(client, author.get_absolute_url())
    assert body.count('class="is-self"') == 1  # the byline's link alone
    assert body.count("Why here: ORCID") == 1
    assert "<!--self:" not in body


def test_a_pinned_work_leads_with_its_tag(client):
    author = AuthorFactory()
    pinned, other = WorkFactory(title="Pinned one"), WorkFactory(title="Other one")
    for work in (pinned, other):
        AuthorshipFactory(work=work, author=author)
    profile = Profile.objects.create(author=author, user=UserFactory())
    profile.pinned_works.add(pinned)
    body = html(client, author.get_absolute_url())
    assert body.count("tag-pinned") == 1
    assert body.index("Pinned one") < body.index("Other one")
    assert body.count('class="work-item is-pinned"') == 1


@pytest.mark.parametrize("change", ["work", "author", "venue"])
def test_an_entry_is_drawn_again_after_what_it_shows_changes(client, drawn, change):
    venue = VenueFactory(name="Annalen der Physik")
    author, coauthor = AuthorFactory(), AuthorFactory(display_name="Max Planck")
    work = WorkFactory(title="On the law of energy distribution", venue=venue)
    AuthorshipFactory(work=work, author=author)
    AuthorshipFactory(work=work, author=coauthor, position=1)
    url = author.get_absolute_url()
    assert "Annalen der Physik" in html(client, url)
    if change == "work":
        work.title, expected = "On the law of radiation", "On the law of radiation"
        work.save()
    elif change == "author":
        coauthor.display_name, expected = "M. K. E. L. Planck", "M. K. E. L. Planck"
        coauthor.save()
    else:
        venue.name, expected = "Annals of Physics", "Annals of Physics"
        venue.save()
    cache.clear()
    assert expected in html(client, url)
    assert drawn == [work.pk, work.pk]


def test_an_entry_of_another_generation_is_drawn_again(client, drawn):
    author = AuthorFactory()
    work = WorkFactory()
    AuthorshipFactory(work=work, author=author)
    html(client, author.get_absolute_url())
    WorkEntry.objects.update(generation="older", html="stale entry")
    # A works section holding the entries is of the entries' generation too.
    ResearcherWorks.objects.update(generation="older")
    cache.clear()
    body = html(client, author.get_absolute_url())
    assert "stale entry" not in body and work.title in body
    assert drawn == [work.pk, work.pk]


def test_the_command_draws_the_missing_entries_and_leaves_merged_works(drawn):
    kept, merged = WorkFactory(), WorkFactory()
    merged.merged_into = kept
    merged.save()
    WorkEntry.objects.all().delete()
    drawn.clear()
    call_command("draw_entries", verbosity=0)
    assert drawn == [kept.pk]
    call_command("draw_entries", verbosity=0)  # nothing missing now
    assert drawn == [kept.pk]
    call_command("draw_entries", "--all", verbosity=0)
    assert drawn == [kept.pk, kept.pk]
    assert set(WorkEntry.objects.values_list("work_id", flat=True)) == {kept.pk}
    assert Work.objects.count() == 2


def test_a_name_added_to_a_kept_byline_shows(client, drawn):
    author = AuthorFactory()
    work = WorkFactory(title="Kept before its second author")
    AuthorshipFactory(work=work, author=author)
    html(client, author.get_absolute_url())
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Emmy Noether"), position=1)
    cache.clear()
    assert "Emmy Noether" in html(client, author.get_absolute_url())
    assert drawn == [work.pk, work.pk]

"""A researcher page's works section, as a visitor without a query string sees it, is
drawn once, kept in the database, and forgotten when the list or an entry on it
changes (``pages.researcher_works``)."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorMetrics, Authorship
from catalogue.signals import authors_changed
from pages import researcher_works
from pages.models import ResearcherWorks
from profiles.models import Profile
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def author(meitner):
    """The researcher these tests show (``conftest.meitner``)."""
    return meitner


@pytest.fixture
def drawn(monkeypatch):
    """The ids of the researchers whose sections were drawn, one a draw."""
    seen = []
    real = researcher_works.draw

    def counting(author, *args):
        seen.append(author.pk)
        return real(author, *args)

    monkeypatch.setattr(researcher_works, "draw", counting)
    return seen


def page(client, author, query: str = "") -> str:
    cache.clear()  # the page itself is not kept: what is read is the section
    response = client.get(author.get_absolute_url() + query)
    assert response.status_code == 200
    return response.content.decode()


def kept_section(author) -> ResearcherWorks | None:
    return ResearcherWorks.objects.filter(
        author=author, generation=researcher_works.generation()
    ).first()


def test_a_section_is_drawn_once_and_kept(client, author, drawn):
    first = page(client, author)
    found = kept_section(author)
    assert found.html in first and "Fission, part 2" in found.html
    assert found.html.startswith('<section class="works-section"')
    assert len(found.shown.split()) == 3
    assert page(client, author) == first
    assert drawn == [author.pk]


def test_the_kept_section_is_what_the_page_draws_for_its_query(client, author, drawn):
    """``?page=1`` asks for the same list, drawn for its visitor: the same bytes, but
    for the address sign-in links come back to."""
    kept = page(client, author)
    assert page(client, author, "?page=1").replace("%3Fpage%3D1", "") == kept
    ResearcherWorks.objects.all().delete()
    assert researcher_works.sections_refresh([author.pk]) == 1
    assert page(client, author) == kept
    assert drawn == [author.pk, author.pk]  # the page with a query drew none


def test_a_kept_section_spares_the_page_its_list(client, author):
    page(client, author)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        client.get(author.get_absolute_url())
    read = " ".join(q["sql"] for q in queries)
    # Its ids, then (their page versions read) its HTML.
    assert read.count('"pages_researcherworks"') == 2
    assert '"pages_workentry"' not in read and '"publications_authorship"' not in read


def test_a_page_with_a_query_draws_its_section_and_keeps_none(client, author, drawn):
    shown = page(client, author, "?sort=title")
    assert shown.index("Fission, part 0") < shown.index("Fission, part 2")
    assert not ResearcherWorks.objects.exists() and drawn == []


def test_a_section_of_another_generation_is_drawn_again(client, author):
    page(client, author)
    ResearcherWorks.objects.update(generation="older", html="<p>stale</p>")
    shown = page(client, author)
    assert "stale" not in shown and "Fission, part 1" in shown


@pytest.mark.parametrize("change", ["title", "coauthor", "new work", "unlinked", "pins"])
def test_a_section_is_forgotten_when_what_it_lists_changes(
    client, author, change, django_capture_on_commit_callbacks
):
    page(client, author)
    work = author.authorships.get(work__title="Fission, part 2").work
    with django_capture_on_commit_callbacks(execute=True):
        if change == "title":
            work.title = "Disintegration of uranium by neutrons"
            work.save()
            shown, gone = "Disintegration of uranium", "Fission, part 2"
        elif change == "coauthor":
            frisch = Authorship.objects.get(work=work, position=1).author
            frisch.display_name = "Otto Robert Frisch"
            frisch.save()
            shown, gone = "Otto Robert Frisch", None
        elif change == "new work":
            AuthorshipFactory(author=author, work=WorkFactory(title="Nuclear isomers"))
            author_metrics_refresh(author_ids=[author.pk])
            shown, gone = "Nuclear isomers", None
        elif change == "unlinked":
            Authorship.objects.get(work=work, author=author).delete()
            shown, gone = "Fission, part 1", "Fission, part 2"
        else:
            profile = Profile.objects.create(author=author, user=UserFactory())
            profile.pinned_works.add(author.authorships.get(work__title="Fission, part 0").work)
            shown, gone = "is-pinned", None
    shows = page(client, author)
    assert shown in shows and (gone is None or gone not in shows)
    assert shown in kept_section(author).html


@pytest.mark.parametrize("change", ["new work", "pins"])
def test_a_change_to_the_record_draws_its_section_again_once_it_commits(
    client, author, drawn, change, django_capture_on_commit_callbacks
):
    page(client, author)
    with django_capture_on_commit_callbacks(execute=True):
        if change == "new work":
            AuthorshipFactory(author=author, work=WorkFactory(title="Nuclear isomers"))
            author_metrics_refresh(author_ids=[author.pk])
        else:
            profile = Profile.objects.create(author=author, user=UserFactory())
            profile.pinned_works.add(author.authorships.first().work)
    assert len(drawn) >= 2 and set(drawn) == {author.pk}
    count = len(drawn)
    page(client, author)
    assert len(drawn) == count  # read from the kept section


def test_a_coauthor_renamed_forgets_the_section_and_its_visitor_draws_it(
    client, author, drawn, django_capture_on_commit_callbacks
):
    page(client, author)
    frisch = AuthorFactory._meta.model.objects.get(display_name="Otto Frisch")
    with django_capture_on_commit_callbacks(execute=True):
        frisch.display_name = "O. R. Frisch"
        frisch.save()
    assert kept_section(author) is None  # Frisch's own is drawn again: his record changed
    assert "O. R. Frisch" in page(client, author)
    assert [pk for pk in drawn if pk == author.pk] == [author.pk, author.pk]


def test_an_import_forgets_the_section_and_the_figures_after_it_draw_it(
    client, author, drawn, django_capture_on_commit_callbacks
):
    page(client, author)
    with django_capture_on_commit_callbacks(execute=True):
        authors_changed.send(sender=AuthorMetrics, author_ids=[author.pk])
    assert len(drawn) > 1 and set(drawn) == {author.pk}
    assert kept_section(author) is not None


def test_the_command_draws_the_missing_sections(author):
    other = AuthorFactory(display_name="Otto Hahn")
    AuthorshipFactory(author=other, work=WorkFactory(title="Transuranic elements"))
    ResearcherWorks.objects.all().delete()
    call_command("draw_entries", verbosity=0)
    assert "Transuranic elements" in kept_section(other).html
    assert "Fission, part 0" in kept_section(author).html


def test_the_command_shares_the_drawing_between_parts(author):
    others = [AuthorFactory(display_name=f"Researcher {n}") for n in range(4)]
    for other in others:
        AuthorshipFactory(author=other, work=WorkFactory())
    everyone = set(AuthorFactory._meta.model.objects.values_list("pk", flat=True))
    assert len(everyone) == 6  # with the co-author
    ResearcherWorks.objects.all().delete()
    call_command("draw_entries", part="2/2", verbosity=0)
    second = set(ResearcherWorks.objects.values_list("author_id", flat=True))
    assert second == {pk for pk in everyone if pk % 2 == 1}
    call_command("draw_entries", part="1/2", verbosity=0)
    assert set(ResearcherWorks.objects.values_list("author_id", flat=True)) == everyone


@pytest.mark.parametrize("part", ["0/2", "3/2", "half"])
def test_the_command_refuses_a_part_that_is_none(part):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--part"):
        call_command("draw_entries", part=part, verbosity=0)


def test_a_change_committing_while_a_page_reads_the_section_is_never_kept_stale(
    client, author, monkeypatch, django_capture_on_commit_callbacks
):
    """The listed works' page versions are read before the kept HTML: a change that
    commits between the two is either in the HTML, or renews the versions the page
    is kept under."""
    from pages import cache as pagecache

    page(client, author)
    work = author.authorships.get(work__title="Fission, part 2").work
    real, raced = pagecache.versions_current, []

    def racing(records):
        records = list(records)
        found = real(records)
        if not raced and any(kind == "work" for kind, _pk in records):
            raced.append(True)
            with django_capture_on_commit_callbacks(execute=True):
                work.title = "Disintegration of uranium by neutrons"
                work.save()
        return found

    monkeypatch.setattr(pagecache, "versions_current", racing)
    cache.clear()
    first = client.get(author.get_absolute_url()).content.decode()
    again = client.get(author.get_absolute_url()).content.decode()
    assert raced
    assert "Disintegration of uranium" in again and "Fission, part 2" not in again
    assert "Fission, part 2" not in first

"""A work page's own facts are drawn once, kept in the database, and drawn again when
the work or a name they show changes (``pages.summaries``)."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalogue.models import Author, Authorship, Funder, Grant, Topic, WorkTopic
from pages import summaries
from pages.models import WorkSummary
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch):
    """The ids of the works whose summaries were drawn, one a draw."""
    seen = []
    real = summaries.draw

    def counting(work, **kwargs):
        seen.append(work.pk)
        return real(work, **kwargs)

    monkeypatch.setattr(summaries, "draw", counting)
    return seen


@pytest.fixture
def work():
    """A work with a named author at an institution, a topic and a funder."""
    work = WorkFactory(title="Superfluid helium in nanopores")
    authorship = AuthorshipFactory(
        work=work, author=AuthorFactory(display_name="Adrian Del Maestro"), position=0
    )
    authorship.institutions.add(InstitutionFactory(name="University of Vermont"))
    topic = Topic.objects.create(key="T1", name="Quantum fluids", kind=Topic.Kind.TOPIC)
    WorkTopic.objects.create(work=work, topic=topic, score=0.9, is_primary=True, source="openalex")
    Grant.objects.create(work=work, funder=Funder.objects.create(name="NSF"), award_id="DMR-1")
    return work


def page(client, work, query: str = "") -> str:
    cache.clear()  # the page itself is not kept: what is read is the summary
    response = client.get(work.get_absolute_url() + query)
    assert response.status_code == 200
    return response.content.decode()


def kept_html(work) -> str | None:
    row = WorkSummary.objects.filter(work=work, generation=summaries.generation()).first()
    return row.html if row else None


def test_a_summary_is_drawn_once_and_kept(client, work, drawn):
    first = page(client, work)
    for shown in ("Adrian Del Maestro", "University of Vermont", "Quantum fluids", "NSF"):
        assert shown in first
    assert kept_html(work) in first
    assert page(client, work) == first
    assert drawn == [work.pk]


def test_the_kept_summary_is_the_one_drawn_for_the_page(client, work):
    fresh = page(client, work)  # drawn by the page
    WorkSummary.objects.all().delete()
    assert summaries.summaries_refresh([work.pk]) == 1  # drawn ahead
    assert page(client, work) == fresh


def test_a_kept_summary_spares_the_page_the_byline_and_facts(client, work):
    page(client, work)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        client.get(work.get_absolute_url())
    read = " ".join(q["sql"] for q in queries)
    assert '"publications_authorship"' not in read
    assert '"publications_worktopic"' not in read
    assert read.count('"pages_worksummary"') == 1


def test_a_summary_of_another_generation_is_drawn_again(client, work):
    page(client, work)
    WorkSummary.objects.update(generation="older", html="<p>stale</p>", metadata="")
    shown = page(client, work)
    assert "stale" not in shown and "Adrian Del Maestro" in shown
    assert kept_html(work) is not None


def test_the_site_address_is_part_of_the_generation(settings, client, work):
    settings.SITE_URL = "https://one.example"
    assert "https://one.example" in page(client, work)
    settings.SITE_URL = "https://two.example"
    shown = page(client, work)
    assert "https://two.example" in shown and "https://one.example" not in shown


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ("title", "Superfluid helium in carbon nanotubes"),
        ("author", "A. Del Maestro"),
        ("institution", "UVM"),
        ("topic", "Quantum liquids"),
        ("funder", "National Science Foundation"),
        ("byline", "Nathan Nichols"),
    ],
)
def test_a_summary_is_drawn_again_when_what_it_shows_changes(
    client, work, drawn, change, shown, django_capture_on_commit_callbacks
):
    page(client, work)
    with django_capture_on_commit_callbacks(execute=True):
        if change == "title":
            work.title = shown
            work.save()
        elif change == "author":
            author = work.authorships.get().author
            author.display_name = shown
            author.save()
        elif change == "institution":
            place = work.authorships.get().institutions.get()
            place.name = shown
            place.save()
        elif change == "topic":
            topic = Topic.objects.get(key="T1")
            topic.name = shown
            topic.save()
        elif change == "funder":
            funder = Funder.objects.get()
            funder.name = shown
            funder.save()
        else:
            AuthorshipFactory(work=work, author=AuthorFactory(display_name=shown), position=1)
    assert drawn == [work.pk, work.pk]  # drawn again once the change committed
    assert shown in kept_html(work)
    assert shown in page(client, work)
    assert len(drawn) == 2  # read from the kept summary


@pytest.mark.parametrize("gone", ["topic", "funder", "institution"])
def test_a_name_deleted_leaves_the_summary(client, work, gone, django_capture_on_commit_callbacks):
    page(client, work)
    with django_capture_on_commit_callbacks(execute=True):
        if gone == "topic":
            Topic.objects.get(key="T1").delete()
        elif gone == "funder":
            Funder.objects.get().delete()
        else:
            Authorship.objects.get(work=work).institutions.get().delete()
    shown = page(client, work)
    assert {"topic": "Quantum fluids", "funder": "NSF", "institution": "University of Vermont"}[
        gone
    ] not in shown


def test_a_change_forgets_the_summary_before_it_commits(client, work):
    page(client, work)
    work.title = "Retitled"
    work.save()  # no commit hook runs: the summary is only forgotten
    assert kept_html(work) is None
    assert "Retitled" in page(client, work)


def test_the_whole_byline_is_drawn_for_its_visitor_and_not_kept(client, work, drawn):
    AuthorshipFactory(work=work, author=AuthorFactory(display_name="Second Author"), position=1)
    WorkSummary.objects.all().delete()
    shown = page(client, work, "?authors=all")
    assert "Second Author" in shown
    assert kept_html(work) is None
    page(client, work, "?authors=all")
    assert len(drawn) == 2


def test_an_embargo_is_told_as_of_the_day_it_is_read(client, work, monkeypatch):
    today = timezone.localdate()
    work.embargo_until = today + timedelta(days=1)
    work.save()
    assert "will become publicly available" in page(client, work)
    assert kept_html(work) is not None
    monkeypatch.setattr("pages.works.timezone.localdate", lambda: today + timedelta(days=2))
    shown = page(client, work)
    assert "was under embargo until" in shown and "will become" not in shown


def test_the_command_draws_the_missing_summaries(work):
    other = WorkFactory(title="Vortices in thin films")
    WorkSummary.objects.all().delete()
    call_command("draw_entries", verbosity=0)
    assert kept_html(work) is not None and "Vortices in thin films" in kept_html(other)


def test_a_drawing_a_page_keeps_late_never_replaces_a_newer_one(
    work, django_capture_on_commit_callbacks
):
    from pages import kept

    older = summaries.draw(work)  # a page read the work, then drew it...
    with django_capture_on_commit_callbacks(execute=True):
        work.title = "Superfluid helium, retitled"
        work.save()  # ...while a change committed and its drawing was kept
    kept.keep_if_possible(WorkSummary, {work.pk: older.fields()}, summaries.generation())
    assert "Superfluid helium, retitled" in kept_html(work)


def test_an_import_draws_its_own_works_summaries_and_forgets_those_naming_its_people(
    client, work, drawn, django_capture_on_commit_callbacks
):
    from catalogue.signals import authors_changed

    author = work.authorships.get().author
    other = WorkFactory(title="Second sound in helium films")
    AuthorshipFactory(work=other, author=author, position=0)
    summaries.summaries_refresh([work.pk, other.pk])
    drawn.clear()
    with django_capture_on_commit_callbacks(execute=True):
        Author.objects.filter(pk=author.pk).update(display_name="A. Del Maestro")  # a batch
        authors_changed.send(sender=WorkSummary, author_ids=[author.pk], work_ids=[work.pk])
    assert drawn == [work.pk]  # the batch's own work, once it committed
    assert kept_html(other) is None  # naming its researcher: forgotten...
    assert "A. Del Maestro" in page(client, other)  # ...and drawn by its next visitor

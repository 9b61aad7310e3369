"""What a researcher page shows of the record itself is drawn once, kept in the
database, and drawn again when any of it changes (``pages.researcher_summaries``)."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorMetrics
from pages import researcher_summaries
from pages.models import ResearcherSummary
from profiles.models import Follow, Profile
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    UserFactory,
    WorkFactory,
)
from trust.services import trust_scores_recompute

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch):
    """The ids of the researchers whose summaries were drawn, one a draw."""
    seen = []
    real = researcher_summaries.draw

    def counting(author):
        seen.append(author.pk)
        return real(author)

    monkeypatch.setattr(researcher_summaries, "draw", counting)
    return seen


@pytest.fixture
def author():
    """A researcher at an institution with three works and computed figures."""
    author = AuthorFactory(
        display_name="Lise Meitner", last_known_institution=InstitutionFactory(name="KWI")
    )
    for number in range(3):
        AuthorshipFactory(author=author, work=WorkFactory(title=f"Fission, part {number}"))
    author_metrics_refresh(author_ids=[author.pk])
    return author


def page(client, author) -> str:
    cache.clear()  # the page itself is not kept: what is read is the summary
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def kept_html(author) -> str | None:
    found = ResearcherSummary.objects.filter(
        author=author, generation=researcher_summaries.generation()
    ).first()
    return found.html + found.figures if found else None


def test_a_summary_is_drawn_once_and_kept(client, author, drawn):
    first = page(client, author)
    assert "Lise Meitner" in first and "KWI" in first and "<dt>works</dt><dd>3</dd>" in first
    found = ResearcherSummary.objects.get(author=author)
    assert found.html in first and found.figures in first
    assert page(client, author) == first
    assert drawn == [author.pk]


def test_the_kept_summary_is_the_one_drawn_for_the_page(client, author):
    fresh = page(client, author)
    ResearcherSummary.objects.all().delete()
    assert researcher_summaries.summaries_refresh([author.pk]) == 1
    assert page(client, author) == fresh


def test_a_kept_summary_spares_the_page_its_figures(client, author):
    page(client, author)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        client.get(author.get_absolute_url())
    read = " ".join(q["sql"] for q in queries)
    assert '"trust_trustscorehistory"' not in read
    assert read.count('"pages_researchersummary"') == 1


def test_a_summary_of_another_generation_is_drawn_again(client, author):
    page(client, author)
    ResearcherSummary.objects.update(generation="older", html="<p>stale</p>", figures="")
    shown = page(client, author)
    assert "stale" not in shown and "Lise Meitner" in shown


@pytest.mark.parametrize("change", ["name", "figures", "trust", "profile", "follow", "place"])
def test_a_summary_is_drawn_again_when_what_it_shows_changes(
    client, author, drawn, change, django_capture_on_commit_callbacks
):
    page(client, author)
    with django_capture_on_commit_callbacks(execute=True):
        if change == "name":
            author.display_name = "L. Meitner"
            author.save()
            shown = "L. Meitner"
        elif change == "figures":
            AuthorshipFactory(author=author, work=WorkFactory(title="Fission, part 4"))
            author_metrics_refresh(author_ids=[author.pk])
            shown = "<dt>works</dt><dd>4</dd>"
        elif change == "trust":
            trust_scores_recompute(author_ids=[author.pk])
            shown = "trust"
        elif change == "profile":
            Profile.objects.create(author=author, user=UserFactory(), tagline="Physicist")
            shown = "Physicist"
        elif change == "follow":
            Follow.objects.create(author=author, user=UserFactory())
            author_metrics_refresh(author_ids=[author.pk])
            shown = "<dt>follower</dt><dd>1</dd>"
        else:
            place = author.last_known_institution
            place.name = "Kaiser Wilhelm Institute"
            place.save()
            shown = "Kaiser Wilhelm Institute"
    assert drawn[0] == author.pk and len(drawn) >= 2  # drawn again once it committed
    assert shown in kept_html(author)
    count = len(drawn)
    assert shown in page(client, author)
    assert len(drawn) == count  # read from the kept summary


def test_an_import_draws_the_summary_again_once_its_figures_are_computed(
    client, author, drawn, django_capture_on_commit_callbacks
):
    from catalogue.signals import authors_changed

    page(client, author)
    with django_capture_on_commit_callbacks(execute=True):
        authors_changed.send(sender=AuthorMetrics, author_ids=[author.pk])
    # The import forgets it; the figures and trust score computed after it draw it.
    assert len(drawn) > 1 and set(drawn) == {author.pk}
    assert kept_html(author) is not None


def test_a_record_without_figures_is_drawn_for_each_visit_until_it_has_them(client, drawn):
    author = AuthorFactory(display_name="Otto Frisch")
    assert "Metrics have not been computed" in page(client, author)
    assert kept_html(author) is None
    page(client, author)
    assert drawn == [author.pk, author.pk]


def test_the_command_draws_the_missing_summaries(author):
    other = AuthorFactory(display_name="Otto Hahn")
    AuthorshipFactory(author=other, work=WorkFactory(title="Transuranic elements"))
    author_metrics_refresh(author_ids=[other.pk])
    ResearcherSummary.objects.all().delete()
    call_command("draw_entries", verbosity=0)
    assert "Otto Hahn" in kept_html(other) and "Lise Meitner" in kept_html(author)

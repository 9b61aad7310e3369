"""A kept page is renewed when anything it shows changes, not only its own record.

A work page lists its matches ("More like this", with their first authors), the
works it cites and the works citing it; a researcher page lists works with every
author's name; both name venues, topics and institutions. Each such change must
show at the next visit, not when the kept copy expires.
"""

import pytest
from django.test import Client

from catalogue.models import Citation, Topic, Work, WorkTopic
from catalogue.signals import authors_changed
from pages import cache as pagecache
from similarity import similarities_compute_all
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    VenueFactory,
    WorkFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]

HIT = pagecache.HIT_HEADER


def visit(url: str):
    response = Client().get(url)
    assert response.status_code == 200
    return response


def kept(url: str) -> str:
    """The page, after checking that a second visit is answered from the cache."""
    visit(url)
    second = visit(url)
    assert second[HIT] == "hit"
    return second.content.decode()


def renewed(url: str) -> str:
    response = visit(url)
    assert HIT not in response
    return response.content.decode()


def imported(*works: Work) -> None:
    """What an import batch says once it has rewritten these works in bulk."""
    authors_changed.send(sender=None, author_ids=[], work_ids=[w.pk for w in works])


@pytest.fixture
def pair():
    """Two works with close titles and abstracts: each is the other's match."""
    abstract = "Tidal forces slow the spin of a moon until one face always points at its planet."
    first = WorkFactory(title="Tidal locking of icy moons", abstract=abstract)
    second = WorkFactory(title="Tidal locking of rocky moons", abstract=abstract)
    WorkFactory(title="Protein folding in cold water", abstract="Chaperones and ice.")
    AuthorshipFactory(work=second, author=AuthorFactory(display_name="Edith Clarke"))
    return first, second


def test_matches_computed_after_the_page_was_kept_show_on_it(pair):
    first, second = pair
    assert "Tidal locking of rocky moons" not in kept(first.get_absolute_url())
    similarities_compute_all()
    assert "Tidal locking of rocky moons" in renewed(first.get_absolute_url())


def test_a_match_retitled_by_an_import_shows_on_the_page_that_lists_it(pair):
    first, second = pair
    similarities_compute_all()
    kept(first.get_absolute_url())
    Work.objects.filter(pk=second.pk).update(title="Tidal locking of rocky exomoons")
    imported(second)
    assert "Tidal locking of rocky exomoons" in renewed(first.get_absolute_url())


def test_a_renamed_author_of_a_match_shows_on_the_page_that_lists_it(pair):
    first, second = pair
    similarities_compute_all()
    assert "Edith Clarke" in kept(first.get_absolute_url())
    author = second.authorships.get().author
    author.display_name = "Edith M. Clarke"
    author.save()
    assert "Edith M. Clarke" in renewed(first.get_absolute_url())


@pytest.mark.parametrize("changed_side", ["cited", "citing"])
def test_a_retitled_reference_or_citer_shows_on_the_other_works_page(changed_side):
    citing = WorkFactory(title="Measuring moons", openalex_id="W101")
    cited = WorkFactory(title="Weighing planets", openalex_id="W102")
    Citation.objects.create(
        citing=citing, citing_openalex_id="W101", cited_openalex_id="W102", cited=cited
    )
    changed, shown_on = (cited, citing) if changed_side == "cited" else (citing, cited)
    assert changed.title in kept(shown_on.get_absolute_url())
    Work.objects.filter(pk=changed.pk).update(title="A new title from the source")
    imported(changed)
    assert "A new title from the source" in renewed(shown_on.get_absolute_url())


def test_a_new_citer_shows_on_the_cited_works_page_and_on_the_merged_records_target():
    cited = WorkFactory(title="Weighing planets", openalex_id="W102")
    merged = WorkFactory(title="Weighing planets (preprint)", openalex_id="W103")
    Work.objects.filter(pk=merged.pk).update(merged_into=cited)
    kept(cited.get_absolute_url())
    for number, target in ((104, cited), (105, merged)):
        citing = WorkFactory(title=f"Measuring moons, part {number}", openalex_id=f"W{number}")
        Citation.objects.create(
            citing=citing,
            citing_openalex_id=citing.openalex_id,
            cited_openalex_id=target.openalex_id,
            cited=target,
        )
        imported(citing)
        assert f"Measuring moons, part {number}" in renewed(cited.get_absolute_url())


def test_a_renamed_coauthor_shows_on_the_anonymous_researcher_page():
    author = AuthorFactory(display_name="Rosalind Franklin")
    coauthor = AuthorFactory(display_name="Maurice Wilkins")
    work = WorkFactory(title="Helical structure")
    AuthorshipFactory(work=work, author=author)
    AuthorshipFactory(work=work, author=coauthor, position=1)
    assert "Maurice Wilkins" in kept(author.get_absolute_url())
    coauthor.display_name = "M. H. F. Wilkins"
    coauthor.save()
    assert "M. H. F. Wilkins" in renewed(author.get_absolute_url())


def venue_shown():
    venue = VenueFactory(name="Journal of Moons")
    work = WorkFactory(title="Measuring moons", venue=venue)
    author = AuthorFactory()
    AuthorshipFactory(work=work, author=author)
    return venue, [work.get_absolute_url(), author.get_absolute_url()]


def topic_shown():
    topic = Topic.objects.create(key="openalex:T1", name="Planetary moons", kind=Topic.Kind.TOPIC)
    work = WorkFactory(title="Measuring moons")
    WorkTopic.objects.create(work=work, topic=topic, score=0.9, is_primary=True)
    return topic, [work.get_absolute_url()]


def institution_shown():
    institution = InstitutionFactory(name="University of Tides")
    return institution, [AuthorFactory(last_known_institution=institution).get_absolute_url()]


@pytest.mark.parametrize("shown", [venue_shown, topic_shown, institution_shown])
def test_a_venue_topic_or_institution_renamed_or_removed_shows_on_the_pages_naming_it(shown):
    entity, pages = shown()
    for page in pages:
        assert entity.name in kept(page)
    entity.name = "A name given by staff"
    entity.save()
    for page in pages:
        assert "A name given by staff" in renewed(page)
        kept(page)
    entity.delete()
    for page in pages:
        assert "A name given by staff" not in renewed(page)


def test_a_page_showing_none_of_the_changes_stays_kept(pair):
    first, second = pair
    other = WorkFactory(title="Unrelated work")
    similarities_compute_all()
    kept(other.get_absolute_url())
    imported(second)  # a match of ``first``: nothing ``other`` shows
    assert HIT in visit(other.get_absolute_url())

"""The researcher page says, at a glance, when the record places the researcher at each institution."""

import re

import pytest

from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuthorInstitution
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


def test_each_institution_shows_its_first_and_last_year(client):
    current = InstitutionFactory(name="OurResearch")
    earlier = InstitutionFactory(name="University of Pittsburgh")
    undated = InstitutionFactory(name="Somewhere Undated")
    author = AuthorFactory(display_name="Heather Piwowar", last_known_institution=current)
    AuthorshipFactory(author=author, work=WorkFactory(publication_year=2020))
    AuthorInstitution.objects.create(author=author, institution=current, years=[2022, 2019])
    AuthorInstitution.objects.create(author=author, institution=earlier, years=[2007, 2011, 2009])
    AuthorInstitution.objects.create(author=author, institution=undated, years=[2015])
    AuthorInstitution.objects.filter(institution=undated).update(years=[])
    author_metrics_refresh(author_ids=[author.pk])

    html = client.get(author.get_absolute_url()).content.decode()
    # In the "At a glance" panel, not only in the graph's stand-in that the slice replaces.
    glance = re.search(r'<ul class="glance-institutions".*?</ul>', html, re.DOTALL).group(0)
    page = " ".join(glance.split())

    assert 'OurResearch</a> <span class="muted small">2019–2022</span>' in page
    assert 'University of Pittsburgh</a> <span class="muted small">2007–2011</span>' in page
    # No years given: none shown, only where the affiliation comes from.
    assert 'Somewhere Undated</a><br><span class="muted small affiliation-source">' in page

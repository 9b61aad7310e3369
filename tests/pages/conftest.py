"""What the page tests share."""

import pytest

from catalogue.metrics import author_metrics_refresh
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory


@pytest.fixture
def meitner():
    """A researcher with three works, one shared with a co-author, a place, and figures."""
    place = InstitutionFactory(name="Kaiser Wilhelm Institute")
    author = AuthorFactory(display_name="Lise Meitner", last_known_institution=place)
    for number in range(3):
        work = WorkFactory(title=f"Fission, part {number}", publication_year=1936 + number)
        AuthorshipFactory(author=author, work=work, position=0)
    AuthorshipFactory(author=AuthorFactory(display_name="Otto Frisch"), work=work, position=1)
    author_metrics_refresh(author_ids=[author.pk])
    return author

"""A large collaboration's byline: the work page shows its first names and its last."""

import re

import pytest

from catalogue.selectors import BYLINES_SHOWN
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory

pytestmark = pytest.mark.django_db


def names_shown(html: str) -> list[str]:
    byline = re.search(r'<ol class="byline".*?</ol>', html, re.DOTALL).group(0)
    return re.findall(r"Member (\d+)", byline)


@pytest.fixture
def collaboration():
    work = WorkFactory(title="A measurement by a large collaboration")
    hidden_place = InstitutionFactory(name="Only Behind The Gap")
    total = BYLINES_SHOWN + 50
    for position in range(total):
        authorship = AuthorshipFactory(
            work=work, author=AuthorFactory(display_name=f"Member {position}"), position=position
        )
        if position == BYLINES_SHOWN + 10:
            authorship.institutions.add(hidden_place)
    return work, total


def test_a_long_byline_shows_its_first_names_and_its_last(client, collaboration):
    work, total = collaboration
    html = client.get(work.get_absolute_url()).content.decode()

    shown = names_shown(html)
    assert shown == [str(n) for n in range(BYLINES_SHOWN)] + [str(total - 1)]
    assert f"… {total - BYLINES_SHOWN - 1} more …" in html
    assert f'href="?authors=all#authors-heading">Show all {total} authors</a>' in html
    assert "Only Behind The Gap" not in html  # affiliations of the names shown only


def test_the_whole_byline_is_one_click_away(client, collaboration):
    work, total = collaboration
    html = client.get(work.get_absolute_url() + "?authors=all").content.decode()

    assert names_shown(html) == [str(n) for n in range(total)]
    assert "more …" not in html and "Only Behind The Gap" in html


def test_a_byline_one_past_the_limit_is_shown_whole(client):
    work = WorkFactory()
    for position in range(BYLINES_SHOWN + 1):
        AuthorshipFactory(
            work=work, author=AuthorFactory(display_name=f"Member {position}"), position=position
        )
    html = client.get(work.get_absolute_url()).content.decode()
    assert len(names_shown(html)) == BYLINES_SHOWN + 1 and "more …" not in html

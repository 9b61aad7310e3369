"""Who is who on real recordings: the names a real feed prints, one person each."""

import shutil

import pytest

from catalogue.models import Author, Authorship, Work
from identity.names import INCOMPATIBLE, compatible
from tests.ingestion.sources.facts import run_file

pytestmark = pytest.mark.django_db

DEL_MAESTRO = "arxiv/legacy-2016/query__au-del_maestro__2016-10.atom.xml"


def _import(tmp_path, path):
    return run_file(tmp_path, path.read_text(encoding="utf-8"), suffix=".atom.xml")


def _people_named(name: str):
    return [
        a
        for a in Author.objects.visible()
        if compatible(a.display_name, name) != INCOMPATIBLE and a.authorships.exists()
    ]


def test_an_author_feed_gives_its_author_one_record(tmp_path, real_fixtures):
    # The feed prints "Adrian Del Maestro" on some works and "A. Del Maestro" on
    # others, with no co-author in common between the two: the name, the subject
    # and the years are the evidence.
    _import(tmp_path, real_fixtures / DEL_MAESTRO)
    people = _people_named("Adrian Del Maestro")
    assert len(people) == 1
    person = people[0]
    assert person.display_name == "Adrian Del Maestro"  # the fullest form of the name
    assert person.authorships.count() == Work.objects.count() == 10
    for authorship in Authorship.objects.filter(author=person):
        assert authorship.evidence  # each work says why it is on the page


def test_an_author_feed_gives_the_same_record_whatever_came_before(tmp_path, real_fixtures):
    # The narrower feeds of the same search, then the whole one: still one person.
    folder = real_fixtures / "arxiv/legacy-2016"
    for name in sorted(p.name for p in folder.glob("query__au-del_maestro_*")):
        copy = tmp_path / name
        shutil.copy(folder / name, copy)
        _import(tmp_path, copy)
    _import(tmp_path, real_fixtures / DEL_MAESTRO)
    people = _people_named("Adrian Del Maestro")
    assert len(people) == 1
    assert (
        people[0].authorships.count() == Work.objects.filter(authorships__author=people[0]).count()
    )
    assert not any(a.display_name == "A. Del Maestro" for a in Author.objects.visible())


def test_co_authors_printed_with_initials_stay_apart_from_namesakes(tmp_path, real_fixtures):
    _import(tmp_path, real_fixtures / DEL_MAESTRO)
    # "C. M. Herdman" is on two works with the same co-author: one person.
    assert len(_people_named("C. M. Herdman")) == 1
    # Subir Sachdev, on three works: one person.
    assert len(_people_named("Subir Sachdev")) == 1

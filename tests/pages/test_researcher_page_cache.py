"""Anonymous researcher pages come from the cache until something they show changes."""

import json

import pytest
from django.core.cache import cache
from django.test import Client

from catalogue.metrics import author_followers_refresh
from catalogue.models import Author
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from pages import cache as pagecache
from pages import entries
from profiles.models import Claim, Follow
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory
from trust import services as trust

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("page_cache")]

HIT = pagecache.HIT_HEADER
AUTHOR_WORKS = "openalex/works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json"


@pytest.fixture
def author():
    author = AuthorFactory(display_name="Rosalind Franklin")
    AuthorshipFactory(work=WorkFactory(title="Helical structure"), author=author)
    return author


def page(client, author) -> str:
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    return response


def test_a_second_anonymous_visit_is_served_without_sql(client, author, django_assert_num_queries):
    first = page(client, author)
    assert HIT not in first
    with django_assert_num_queries(0):
        second = page(client, author)
    assert second[HIT] == "hit" and second.content == first.content


def test_an_imported_work_shows_at_the_next_visit(
    client, real_fixtures, tmp_path, django_capture_on_commit_callbacks
):
    recorded = json.loads((real_fixtures / AUTHOR_WORKS).read_text())
    last = recorded["results"][-1]
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({**recorded, "results": recorded["results"][:-1]}))
    everything = tmp_path / "everything.json"
    everything.write_text(json.dumps(recorded))

    def run(path):
        with django_capture_on_commit_callbacks(execute=True):
            run = import_run_create(
                source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
            )
            import_run_execute(run_id=run.pk)

    run(earlier)
    author = Author.objects.get(openalex_id="A5017898742")
    page(client, author)
    assert HIT in page(client, author)
    run(everything)
    response = page(client, author)
    assert HIT not in response
    assert last["title"][:40] in response.content.decode()


def test_an_edited_work_shows_on_its_authors_pages(client, author):
    page(client, author)
    work = author.authorships.get().work
    work.title = "Helical structure of nucleic acids"
    work.save()
    assert "Helical structure of nucleic acids" in page(client, author).content.decode()


def test_claims_follows_and_trust_changes_renew_the_page(client, author):
    page(client, author)
    claim = Claim.objects.create(user=UserFactory(), author=author, method="evidence")
    assert HIT not in page(client, author)
    claim.status = "approved"
    claim.save()
    assert HIT not in page(client, author)

    Follow.objects.create(user=UserFactory(), author=author)
    assert HIT not in page(client, author)
    author_followers_refresh(author_ids=[author.pk])
    assert HIT not in page(client, author)

    assert HIT in page(client, author)
    trust.trust_scores_recompute(author_ids=[author.pk], reason="test")
    assert HIT not in page(client, author)


def test_signed_in_members_never_get_the_anonymous_copy(client, author):
    page(client, author)
    assert HIT in page(client, author)
    member = Client()
    member.force_login(UserFactory())
    for _ in range(2):
        assert HIT not in page(member, author)


def test_members_get_kept_work_entries_and_see_a_renamed_coauthor(author, monkeypatch):
    coauthor = AuthorFactory(display_name="Maurice Wilkins")
    AuthorshipFactory(work=author.authorships.get().work, author=coauthor, position=1)
    member = Client()
    member.force_login(UserFactory())
    drawn = []
    real_draw = entries.draw

    def counting(work):
        drawn.append(work.pk)
        return real_draw(work)

    monkeypatch.setattr(entries, "draw", counting)
    assert "Maurice Wilkins" in page(member, author).content.decode()
    cache.clear()  # the entry is kept in the database, not in the cache
    page(member, author)
    assert len(drawn) == 1  # the second page took the kept entry
    coauthor.display_name = "M. H. F. Wilkins"
    coauthor.save()
    assert "M. H. F. Wilkins" in page(member, author).content.decode()
    assert len(drawn) == 2

"""The nightly refresh asks OpenAlex for what changed for claimed and followed authors."""

import pytest

from catalogue.models import ImportRun
from config.celery import app as celery_app
from profiles.models import Follow, Profile
from profiles.tasks import refresh_tracked_authors
from tests.factories import AuthorFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_refresh_covers_claimed_and_followed_authors_only(django_capture_on_commit_callbacks):
    followed = AuthorFactory(openalex_id="A100")
    claimed = AuthorFactory(openalex_id="A200")
    AuthorFactory(openalex_id="A300")  # neither: not refreshed
    AuthorFactory(openalex_id=None)  # no OpenAlex id: nothing to ask for
    Follow.objects.create(user=UserFactory(), author=followed)
    Profile.objects.create(user=UserFactory(), author=claimed)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        run_ids = refresh_tracked_authors()
    run = ImportRun.objects.get(pk__in=run_ids)
    assert run.kind == "refresh"
    assert run.parameters["author_ids"] == ["A100", "A200"]
    assert run.parameters["from_updated_date"]
    assert len(queued) == 1  # the import itself is queued, not run here


def test_refresh_is_scheduled_nightly_on_the_imports_queue():
    entry = celery_app.conf.beat_schedule["refresh-tracked-authors"]
    assert entry["task"] == "profiles.tasks.refresh_tracked_authors"
    assert celery_app.conf.task_routes[entry["task"]]["queue"] == "imports"

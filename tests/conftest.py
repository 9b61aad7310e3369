from pathlib import Path

import pytest

from config.celery import app as celery_app


@pytest.fixture(autouse=True)
def _tasks_inline(request):
    """Run Celery tasks in-process unless a test drives a real worker."""
    if request.node.get_closest_marker("real_worker"):
        yield
        return
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    cache.clear()
    yield


REAL_FIXTURES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "real"


@pytest.fixture
def real_fixtures() -> Path:
    """The recorded OpenAlex and arXiv responses kept beside the project (../shared)."""
    if not REAL_FIXTURES_DIR.is_dir():
        pytest.skip(f"recorded responses not found at {REAL_FIXTURES_DIR} (../shared is absent)")
    return REAL_FIXTURES_DIR

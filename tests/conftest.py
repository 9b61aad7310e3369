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

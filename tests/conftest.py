import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from config.celery import app as celery_app


def _redis_database_of_this_worker() -> None:
    """Under pytest-xdist, give each worker a Redis database of its own.

    The suite clears the cache before every test and counts rate limits in it,
    and some tests read what was queued: two workers on one database would
    clear and read each other's. Worker gwN takes the database N + 1 after
    REDIS_URL's; processes the tests start inherit it through the environment.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or not settings.REDIS_URL:
        return
    parts = urlsplit(settings.REDIS_URL)
    database = int(parts.path.strip("/") or 0) + 1 + int(worker.removeprefix("gw"))
    url = urlunsplit(parts._replace(path=f"/{database}"))
    os.environ["REDIS_URL"] = url
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url}}
    override_settings(REDIS_URL=url, CELERY_BROKER_URL=url, CACHES=caches).enable()
    celery_app.conf.broker_url = url


_redis_database_of_this_worker()


def _cache_in_memory_without_redis() -> None:
    """Without Redis, the tests keep the cache in memory, not in the database's table.

    The tests count the statements a page reads records with; the embedded run's
    cache table would add its own to every count. The shared cache itself is
    tested on its own (tests/config/test_embedded_cache.py).
    """
    if not settings.REDIS_URL:
        memory = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
        override_settings(CACHES=memory).enable()


_cache_in_memory_without_redis()

# The people tests talk about (owner, follower, stranger, staff...) and their builders.
pytest_plugins = ["tests.people"]


def pytest_collection_modifyitems(config, items):
    """Start the tests that take minutes first.

    pytest-xdist hands tests out in collection order: a test of several minutes
    dealt last keeps one worker busy while the others have finished. Dealt first,
    the short tests fill in around it. The order of the rest is kept.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    """Hash passwords with MD5: PBKDF2's rounds were most of the suite's CPU time.

    Every user a factory makes has a password, and sign-ins check it; none of the
    tests is about the strength of the hash. One that is sets
    ``settings.PASSWORD_HASHERS`` itself.
    """
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


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


# No test calls OpenAlex live: the look-up of institutions after a run is off unless a
# test turns it on under `responses`. Workers started by tests inherit the variable.
os.environ["INSTITUTION_LOOKUP"] = "false"


@pytest.fixture(autouse=True)
def _no_live_lookups(settings):
    settings.INSTITUTION_LOOKUP = False


@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _no_page_cache(settings):
    """Pages render from the database: tests change rows without saying so.

    The tests of the page cache ask for ``page_cache``.
    """
    settings.PAGE_CACHE = False


@pytest.fixture
def page_cache(_no_page_cache, settings):
    """Whole anonymous pages kept in the cache, as the site runs."""
    settings.PAGE_CACHE = True


REAL_FIXTURES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "real"


@pytest.fixture
def real_fixtures() -> Path:
    """The recorded OpenAlex and arXiv responses kept beside the project (../shared)."""
    if not REAL_FIXTURES_DIR.is_dir():
        pytest.skip(f"recorded responses not found at {REAL_FIXTURES_DIR} (../shared is absent)")
    return REAL_FIXTURES_DIR


@pytest.fixture
def statistics_of_this_test(db):
    """Planner statistics that describe this test's tables, not an earlier test's.

    ANALYZE writes a table's row count in place, outside any transaction: a test that
    imported thousands of records (an import analyses the tables it fills) leaves
    the planner expecting them after its rollback, and search, which picks its plan
    from the planner's estimate, would treat a handful of works as a large result.
    """
    from catalogue.models import Author, Work, WorkSearch

    if connection.vendor == "postgresql":
        tables = ", ".join(m._meta.db_table for m in (Work, WorkSearch, Author))
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {tables}")

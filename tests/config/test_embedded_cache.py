"""Without Redis, every process of the machine shares one cache: the database's.

A page kept by the server must not outlive a change made by another process
(a shell, an import command run beside ``make run``).
"""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings

from pages import cache as pagecache
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.usefixtures("page_cache"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="another process needs the test database: SQLite's is in memory (set DATABASE_URL)",
    ),
]


def another_process(code: str) -> None:
    """Run ``code`` in ``manage.py shell`` as the embedded run has it: no Redis."""
    database = connection.settings_dict
    user = quote(database["USER"] or "", safe="")
    if database["PASSWORD"]:
        user += ":" + quote(database["PASSWORD"], safe="")
    where = f"{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{database['NAME']}"
    env = {**os.environ, "DATABASE_URL": f"postgres://{user}@{where}"}
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, check=True
    )


@pytest.mark.django_db(transaction=True)
def test_a_name_changed_by_another_process_shows_at_the_next_visit():
    with override_settings(CACHES=settings.EMBEDDED_CACHES):  # as the embedded run has it
        call_command("createcachetable", verbosity=0)
        work = WorkFactory(title="Tidal locking of moons")
        author = AuthorFactory(display_name="Edith Clarke")
        AuthorshipFactory(work=work, author=author)
        client = Client()
        client.get(work.get_absolute_url())
        assert pagecache.HIT_HEADER in client.get(work.get_absolute_url())

        another_process(
            "from catalogue.models import Author; "
            f"a = Author.objects.get(pk={author.pk}); a.display_name = 'Edith M. Clarke'; a.save()"
        )

        response = client.get(work.get_absolute_url())
        assert pagecache.HIT_HEADER not in response
        assert "Edith M. Clarke" in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_migrate_alone_makes_the_cache_table():
    with override_settings(CACHES=settings.EMBEDDED_CACHES), connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS cache_entries")
        call_command("migrate", verbosity=0)
        assert "cache_entries" in connection.introspection.table_names(cursor)

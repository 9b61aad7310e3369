"""The public pages, assembled from the apps below, and their cache."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class PagesConfig(AppConfig):
    name = "pages"

    def ready(self) -> None:
        from config.cache import cache_tables_made
        from pages import receivers  # noqa: F401 - connects the receivers that renew pages

        # The page cache's own table, where the settings keep the cache in the database.
        post_migrate.connect(cache_tables_made, sender=self, dispatch_uid="pages.cache_tables")

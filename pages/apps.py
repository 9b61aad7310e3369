"""The public pages, assembled from the apps below, and their cache."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"

    def ready(self) -> None:
        from pages import receivers  # noqa: F401 - connects the receivers that renew pages

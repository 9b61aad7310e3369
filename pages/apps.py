"""The public pages, assembled from the apps below, and their cache."""

from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"

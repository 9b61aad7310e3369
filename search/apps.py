"""Search over works and researchers' names."""

from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

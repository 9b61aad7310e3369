"""More like this: which works resemble each other, and its backlog."""

from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "similarity"

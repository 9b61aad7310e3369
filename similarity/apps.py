"""More like this: which works resemble each other, and its backlog."""

from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "similarity"

    def ready(self) -> None:
        from similarity import receivers, tasks  # noqa: F401 - connect and register

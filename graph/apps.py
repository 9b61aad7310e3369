from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "graph"

    def ready(self) -> None:
        from graph import receivers  # noqa: F401 - connects the receivers

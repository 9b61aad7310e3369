"""Where records come in: sources, import runs, mapping and writing."""

from django.apps import AppConfig


class IngestionConfig(AppConfig):
    name = "ingestion"

    def ready(self) -> None:
        # The tasks register, for the import code to send them by name.
        from ingestion import tasks  # noqa: F401

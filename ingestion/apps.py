"""Where records come in: sources, import runs, mapping and writing."""

from django.apps import AppConfig


class IngestionConfig(AppConfig):
    name = "ingestion"

"""Staff curation: the admin, its views, queues and decisions."""

from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"

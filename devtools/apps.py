"""The demo data set and the corpus generator used by tests and benches."""

from django.apps import AppConfig


class DevtoolsConfig(AppConfig):
    name = "devtools"

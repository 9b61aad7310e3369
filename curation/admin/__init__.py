"""The admin of every app's records, registered when Django looks for ``curation.admin``."""

from curation.admin import catalogue, graph, profiles, trust  # noqa: F401 - they register

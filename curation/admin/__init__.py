"""The admin of every app's records, registered when Django looks for ``curation.admin``."""

from curation.admin import (  # noqa: F401 - they register
    catalogue,
    graph,
    identity,
    identity_requests,
    profiles,
    trust,
)

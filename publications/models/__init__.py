"""The scholarly record: works, authors and where every fact came from.

One module per part of the record; every model is importable from here
(``from publications.models import Work``), as Django and the migrations expect.
"""

from publications.models.audit import AuditEvent
from publications.models.authors import Author, AuthorInstitution, AuthorMetrics, AuthorQuerySet
from publications.models.common import Source, TimeStamped, bounded_text, unique_where_present
from publications.models.curation import LinkConstraint, MergeCandidate
from publications.models.entities import Funder, Institution, Topic, Venue
from publications.models.imports import ImportProblem, ImportRun, PayloadField, SourceRecord
from publications.models.works import (
    Authorship,
    AuthorshipQuerySet,
    Citation,
    Grant,
    SimilarityRequest,
    UnlinkedAuthorship,
    Work,
    WorkQuerySet,
    WorkSearch,
    WorkSimilarity,
    WorkTopic,
)

__all__ = [
    "AuditEvent",
    "Author",
    "AuthorInstitution",
    "AuthorMetrics",
    "AuthorQuerySet",
    "Authorship",
    "AuthorshipQuerySet",
    "Citation",
    "Funder",
    "Grant",
    "ImportProblem",
    "ImportRun",
    "Institution",
    "LinkConstraint",
    "MergeCandidate",
    "PayloadField",
    "Source",
    "SourceRecord",
    "TimeStamped",
    "Topic",
    "UnlinkedAuthorship",
    "Venue",
    "Work",
    "WorkQuerySet",
    "WorkSearch",
    "SimilarityRequest",
    "WorkSimilarity",
    "WorkTopic",
    "bounded_text",
    "unique_where_present",
]

"""The scholarly record: works, authors and where every fact came from.

One module per part of the record; every model is importable from here
(``from catalogue.models import Work``), as Django and the migrations expect.
"""

from catalogue.models.audit import AuditEvent
from catalogue.models.authors import Author, AuthorInstitution, AuthorMetrics, AuthorQuerySet
from catalogue.models.common import Source, TimeStamped, bounded_text, unique_where_present
from catalogue.models.curation import (
    IdentityRequest,
    LinkConstraint,
    MergeCandidate,
    SplitProposal,
)
from catalogue.models.entities import Funder, Institution, Topic, Venue
from catalogue.models.imports import ImportProblem, ImportRun, PayloadField, SourceRecord
from catalogue.models.references import ReferencePreview
from catalogue.models.works import (
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
    "IdentityRequest",
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
    "SplitProposal",
    "PayloadField",
    "ReferencePreview",
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

"""Staff curation: import runs and problems, merge candidates, author merges and splits.

Every service is one transaction that makes the change and writes an AuditEvent
saying who did what. The event's data holds everything needed to put the rows
back, so ``audit_undo`` can reverse a merge, a split or a candidate decision
exactly. Decisions that imports must obey are stored as LinkConstraints.

One module per thing curated (``works``, ``authors``, ``candidates``,
``imports``), the audit trail in ``audit`` and ``undo``; the services are
importable from here.
"""

from publications.curation.audit import UNDO, Actor, audit_record, audit_undo_event
from publications.curation.authors import (
    author_merge,
    author_merge_preview,
    author_split,
    author_split_preview,
)
from publications.curation.candidates import merge_candidate_keep_apart, merge_candidate_merge
from publications.curation.imports import (
    import_problem_ignore,
    import_problem_retry,
    import_run_cancel,
    import_run_retry,
)
from publications.curation.undo import audit_is_undoable, audit_undo
from publications.curation.works import work_merge

__all__ = [
    "UNDO",
    "Actor",
    "audit_is_undoable",
    "audit_record",
    "audit_undo",
    "audit_undo_event",
    "author_merge",
    "author_merge_preview",
    "author_split",
    "author_split_preview",
    "import_problem_ignore",
    "import_problem_retry",
    "import_run_cancel",
    "import_run_retry",
    "merge_candidate_keep_apart",
    "merge_candidate_merge",
    "work_merge",
]

"""Staff curation: import runs and problems, merge candidates, author merges and splits.

Every service is one transaction that makes the change and writes an AuditEvent
saying who did what. The event's data holds everything needed to put the rows
back, so ``audit_undo`` can reverse a merge, a split or a candidate decision
exactly. Decisions that imports must obey are stored as LinkConstraints.

One module per thing curated (``works``, ``authors``, ``candidates``,
``splits``, ``imports``), the audit trail in ``audit`` and ``undo``; the services are
importable from here.
"""

from importlib import import_module

# Where each service of the package's face lives. They load on first use, so the package
# can be an installed app (imported before the models are ready).
_FACE = {
    "Actor": "catalogue.audit",
    "UNDO": "catalogue.audit",
    "audit_is_undoable": "curation.undo",
    "audit_record": "catalogue.audit",
    "audit_undo": "curation.undo",
    "audit_undo_event": "catalogue.audit",
    "author_merge": "curation.authors",
    "author_merge_preview": "curation.authors",
    "author_split": "curation.authors",
    "author_split_preview": "curation.authors",
    "identity_candidate_refuse": "curation.identity_requests",
    "identity_request_approve": "curation.identity_requests",
    "identity_request_make": "curation.identity_requests",
    "identity_request_reject": "curation.identity_requests",
    "identity_request_undo": "curation.undo",
    "import_problem_ignore": "curation.imports",
    "import_problem_retry": "curation.imports",
    "import_run_cancel": "curation.imports",
    "import_run_retry": "curation.imports",
    "merge_candidate_keep_apart": "curation.candidates",
    "merge_candidate_merge": "curation.candidates",
    "split_proposal_keep_whole": "curation.splits",
    "split_proposal_split": "curation.splits",
    "work_merge": "curation.works",
}


def __getattr__(name: str):
    if name in _FACE:
        return getattr(import_module(_FACE[name]), name)
    raise AttributeError(f"module 'curation' has no attribute {name!r}")


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
    "identity_candidate_refuse",
    "identity_request_approve",
    "identity_request_make",
    "identity_request_reject",
    "identity_request_undo",
    "import_problem_ignore",
    "import_problem_retry",
    "import_run_cancel",
    "import_run_retry",
    "merge_candidate_keep_apart",
    "merge_candidate_merge",
    "split_proposal_keep_whole",
    "split_proposal_split",
    "work_merge",
]

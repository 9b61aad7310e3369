"""The one way an import is asked for: recorded, audited and sent.

Staff in the admin, the API, the management commands, an owner adding a missing
work and the nightly refresh all ask here, so every run asked for has its audit
event: who asked (``requested_by``, none for the site itself) and through what
(``via``). Retrying and cancelling a run are staff decisions, audited in
``curation.imports``.
"""

from __future__ import annotations

from django.db import transaction

from catalogue.audit import Actor, audit_record
from catalogue.models import ImportRun
from ingestion.importing import dispatch


class Via:
    """Through what an import was asked for, as the audit event says."""

    ADMIN = "admin"
    API = "api"
    COMMAND = "command"
    OWNER = "owner"
    REFRESH = "refresh"


def import_run_request(
    *,
    source: str,
    kind: str,
    parameters: dict,
    requested_by: Actor = None,
    via: str,
    background: bool = False,
    send: bool = True,
) -> ImportRun:
    """Record an import, write who asked for it through what, and send it once committed.

    ``background``: the caller (a page) does not wait for the run, even without a
    broker. ``send=False``: the caller carries the run out itself (the commands).
    Raises ``ValidationError`` for a kind or parameters the source does not take.
    """
    with transaction.atomic():
        run = dispatch.import_run_create(
            source=source,
            kind=kind,
            parameters=parameters,
            requested_by=requested_by,
            queue=send,
            background=background,
        )
        audit_record(
            actor=requested_by,
            action="import_run_create",
            target=run,
            data={
                "run": run.pk,
                "source": source,
                "kind": kind,
                "parameters": parameters,
                "via": via,
            },
        )
    return run

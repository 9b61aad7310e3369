"""Who may do what on the staff side: imports, curation and reports, in the API and the admin.

The rows of the permission table for staff steps; tests/permissions/table.py
says how a row is read and tried.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalogue.models import AuditEvent, ImportRun, MergeCandidate
from profiles.models import Report
from tests.permissions.table import (
    DECIDERS,
    GRANTED,
    INVITE_TEXT,
    MESSAGE,
    READERS,
    STAFF,
    SUPER,
    VIEWER,
    Row,
    admin_change,
    admin_only,
    api_only,
    named_url,
    problems,
)

pytestmark = pytest.mark.django_db

# An OpenAlex list page as a recorded file, for the admin's upload form.
RECORDED_FILE = (
    b'{"meta": {"count": 1, "per_page": 25}, "results": [{"id": "https://openalex.org/W9",'
    b' "display_name": "A recorded work", "authorships": []}]}'
)

ROWS = [
    # Imports ------------------------------------------------------------------------------------
    Row(
        "imports: list (API)",
        "get",
        lambda w: "/api/v1/imports/",
        api_only(READERS, 200),
        api=True,
        private=('"parameters"',),
        sees=READERS,
    ),
    Row(
        "imports: queue (API)",
        "post",
        lambda w: "/api/v1/imports/",
        api_only(DECIDERS, 201),
        data={"source": "openalex", "kind": "author", "parameters": {"id": "A5023888391"}},
        api=True,
        changed=lambda w: ImportRun.objects.count() > 2,
        acts=DECIDERS,
    ),
    Row(
        "imports: cancel (API)",
        "post",
        lambda w: f"/api/v1/imports/{w.queued_run.pk}/cancel/",
        api_only(DECIDERS, 200),
        api=True,
        changed=lambda w: ImportRun.objects.get(pk=w.queued_run.pk).status == "cancelled",
        acts=DECIDERS,
    ),
    Row(
        "imports: retry (API)",
        "post",
        lambda w: f"/api/v1/imports/{w.failed_run.pk}/retry/",
        api_only(DECIDERS, 200),
        api=True,
        changed=lambda w: ImportRun.objects.get(pk=w.failed_run.pk).status == "queued",
        acts=DECIDERS,
    ),
    Row(
        "imports: list (admin)",
        "get",
        named_url("admin:publications_importrun_changelist"),
        admin_only(READERS, 200),
    ),
    Row(
        "imports: new import form (admin)",
        "get",
        named_url("admin:publications_importrun_new_import"),
        admin_only(DECIDERS, 200),
    ),
    Row(
        "imports: upload a recorded file (admin)",
        "post",
        named_url("admin:publications_importrun_new_import"),
        admin_only(DECIDERS, 302),
        data=lambda w: {
            "source": "openalex",
            "kind": "dois",
            "value": "",
            "upload": SimpleUploadedFile("works.json", RECORDED_FILE),
        },
        changed=lambda w: ImportRun.objects.filter(kind=ImportRun.Kind.FILE).exists(),
        acts=DECIDERS,
    ),
    Row(
        "imports: a run's progress (admin)",
        "get",
        named_url("admin:publications_importrun_progress", lambda w: w.queued_run.pk),
        admin_only(READERS, 200),
    ),
    Row(
        "imports: cancel (admin)",
        "post",
        named_url("admin:publications_importrun_cancel", lambda w: w.queued_run.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: ImportRun.objects.get(pk=w.queued_run.pk).status == "cancelled",
        acts=DECIDERS,
    ),
    Row(
        "imports: retry (admin)",
        "post",
        named_url("admin:publications_importrun_retry", lambda w: w.failed_run.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: ImportRun.objects.get(pk=w.failed_run.pk).status == "queued",
        acts=DECIDERS,
    ),
    # Curation -----------------------------------------------------------------------------------
    Row(
        "merge candidates (admin)",
        "get",
        named_url("admin:publications_mergecandidate_changelist"),
        admin_only(READERS, 200),
    ),
    Row(
        "merge candidate: keep apart (admin)",
        "post",
        named_url("admin:publications_mergecandidate_keep_apart", lambda w: w.candidate.pk),
        admin_only(DECIDERS, 302),
        changed=lambda w: MergeCandidate.objects.get(pk=w.candidate.pk).status != "open",
        acts=DECIDERS,
    ),
    Row(
        "author merge page (admin)",
        "get",
        named_url("admin:publications_author_merge", lambda w: w.namesakes[0].pk),
        admin_only(DECIDERS, 200),
    ),
    # Reports and private messages in the admin ----------------------------------------------------
    Row(
        "report review: the conversation it keeps (admin), audited",
        "get",
        admin_change("profiles_report", lambda w: w.report),
        admin_only(READERS, 200),
        private=(MESSAGE, INVITE_TEXT),
        sees=READERS,
        changed=lambda w: AuditEvent.objects.filter(action="report_evidence_view").exists(),
        acts=READERS,
    ),
    Row(
        "report review: search does not reach message text (admin)",
        "get",
        lambda w: "/admin/profiles/report/?q=MESSAGE-TEXT-9d5",
        admin_only(READERS, 200),
        private=("Unwanted personal questions.",),
        sees=frozenset(),
    ),
    Row(
        "report review: dismiss (admin)",
        "post",
        named_url("admin:profiles_report_changelist"),
        # The viewer's list has no such action: the list comes back, nothing changes.
        admin_only(DECIDERS, 302) | {VIEWER: 200},
        data=lambda w: {"action": "dismiss", "_selected_action": [w.report.pk]},
        changed=lambda w: Report.objects.get(pk=w.report.pk).status == "dismissed",
        acts=DECIDERS,
    ),
    Row(
        "private messages are not in the admin",
        "get",
        lambda w: "/admin/profiles/message/",
        admin_only(set(), 404) | {STAFF: 404, VIEWER: 404, GRANTED: 404, SUPER: 404},
    ),
    Row(
        "invitations are not in the admin",
        "get",
        lambda w: "/admin/profiles/invitation/",
        admin_only(set(), 404) | {STAFF: 404, VIEWER: 404, GRANTED: 404, SUPER: 404},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_who_may_do_what_on_the_staff_side(world, row):
    wrong = problems(row, world)
    assert not wrong, wrong

"""Audit actions take one form, ``<record>_<verb>`` (``claim_approve``, ``author_merge``).

Staff curation wrote ``author.merge`` and ``undo`` where the rest of the site
wrote ``claim_approve``: the rows written before are renamed, both ways.
"""

from django.db import migrations

RENAMED = {
    "merge_candidate.keep_apart": "merge_candidate_keep_apart",
    "merge_candidate.superseded": "merge_candidate_supersede",
    "work.merge": "work_merge",
    "author.merge": "author_merge",
    "author.split": "author_split",
    "import_run.create": "import_run_create",
    "import_run.cancel": "import_run_cancel",
    "import_run.retry": "import_run_retry",
    "import_problem.retry": "import_problem_retry",
    "import_problem.ignore": "import_problem_ignore",
    "undo": "audit_event_undo",
}


def rename(pairs):
    def run(apps, schema_editor):
        AuditEvent = apps.get_model("publications", "AuditEvent")
        for old, new in pairs.items():
            AuditEvent.objects.filter(action=old).update(action=new)
        # An undo keeps the name of what it undid in its data.
        for event in AuditEvent.objects.filter(action=pairs.get("undo", "undo")).only("data"):
            undone = (event.data or {}).get("action")
            if undone in pairs:
                event.data["action"] = pairs[undone]
                event.save(update_fields=["data"])

    return run


class Migration(migrations.Migration):
    dependencies = [("publications", "0018_work_open_access_and_biblio")]

    operations = [
        migrations.RunPython(
            rename(RENAMED), rename({new: old for old, new in RENAMED.items()}), elidable=False
        ),
    ]

"""Loading the demo data set (``devtools/demo/``) through the real importers.

Each step is a service the ``demo`` command calls in turn: the OpenAlex records,
the arXiv feed, the facts staff add by hand, and later the update that arrives
after people have started following records. ``devtools/demo/README.md``
says what the files hold and where each fact comes from.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from django.db import transaction
from django.test.utils import override_settings

from catalogue.audit import audit_record
from catalogue.models import ImportRun, Source, Work
from curation.constraints import metrics_refresh
from ingestion.importing.execution import import_run_execute
from ingestion.importing.requesting import Via, import_run_request

DEMO_DIR = Path(__file__).resolve().parent / "demo"
# The order matters: the fictional researchers are created first so that the seed
# researchers are the newest records (the home page lists those first); authors and
# institutions come before the works that name them.
OPENALEX_FILES = [
    "openalex/fictional-authors.json",
    "openalex/authors.json",
    "openalex/institutions.json",
    "openalex/works.json",
    "openalex/fictional-works.json",
]
ARXIV_FILES = ["arxiv/feed.atom"]
LATER_FILES = ["later/works.json"]  # after the people step: it brings alerts to followers
CURATION_FILE = "curation.json"


def demo_import(*, files: list[str], source: str) -> ImportRun:
    """Import demo files in this process, as ``import_file`` does, without asking OpenAlex."""
    paths = [str((DEMO_DIR / name).resolve()) for name in files]
    run = import_run_request(
        source=source,
        kind=ImportRun.Kind.FILE,
        parameters={"paths": paths},
        via=Via.COMMAND,
        send=False,
    )
    # The demo is offline: its institutions come as records, none is looked up.
    with override_settings(INSTITUTION_LOOKUP=False):
        return import_run_execute(run_id=run.pk)


def demo_import_openalex() -> ImportRun:
    return demo_import(files=OPENALEX_FILES, source=Source.OPENALEX)


def demo_import_arxiv() -> ImportRun:
    return demo_import(files=ARXIV_FILES, source=Source.ARXIV)


def demo_import_later() -> ImportRun:
    return demo_import(files=LATER_FILES, source=Source.OPENALEX)


def demo_curate(path: Path = DEMO_DIR / CURATION_FILE) -> int:
    """Apply facts no imported record carries (an embargo, a category a seed page shows).

    They are applied as staff would apply them, and only where no source set the field.
    Each change is marked as set by staff in the work's provenance, so a re-import keeps
    it, and written to the audit trail with the reason; an unchanged value is left alone.
    The authors' figures are refreshed once, after every change. Returns the works changed.
    """
    author_ids: set[int] = set()
    changed = 0
    with transaction.atomic():
        for entry in json.loads(path.read_text("utf-8")):
            work = Work.objects.filter(**entry["work"]).first()
            if work is None:
                raise ValueError(f"demo curation: no work matches {entry['work']}")
            changes = _curated(work, entry["set"])
            if changes:
                changed += 1
                work.save(update_fields=[*entry["set"], "provenance"])
                author_ids.update(work.authorships.values_list("author_id", flat=True))
                audit_record(
                    actor=None,
                    action="work_change",
                    target=work,
                    data={"via": "demo", "changes": changes, "why": entry["why"]},
                )
        # Their authors' figures (primary category, AI score) read the curated fields.
        metrics_refresh(author_ids)
    return changed


def _curated(work: Work, values: dict) -> dict:
    """Set on ``work`` the values no source set; return what changed, for the audit trail."""
    changes = {}
    for field, raw in values.items():
        value = datetime.date.fromisoformat(raw) if field == "embargo_until" else raw
        source = work.provenance.get(field)
        if getattr(work, field) and source not in (None, "staff"):
            continue  # a source set it: its value stands
        if getattr(work, field) != value:
            changes[field] = {"from": str(getattr(work, field)), "to": raw}
            setattr(work, field, value)
            work.provenance[field] = "staff"
    return changes

import datetime
import json
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.test.utils import override_settings

from publications.curation import audit_record
from publications.curation.constraints import metrics_refresh
from publications.models import Work

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Load the demo data set (OpenAlex JSON and an arXiv feed) through the real importers."

    def handle(self, *args, **options):
        openalex = sorted((DEMO_DIR / "openalex").glob("*.json"))
        arxiv = sorted((DEMO_DIR / "arxiv").glob("*.atom"))
        # Authors first, then their works; arXiv last, so it merges into the OpenAlex works.
        openalex.sort(key=lambda p: p.name != "authors.json")
        # The demo is offline: it asks OpenAlex for nothing (its institutions come as records).
        with override_settings(INSTITUTION_LOOKUP=False):
            call_command("import_file", *openalex, stdout=self.stdout, stderr=self.stderr)
            call_command("import_file", *arxiv, stdout=self.stdout, stderr=self.stderr)
        self._curate(DEMO_DIR / "curation.json")

    @transaction.atomic
    def _curate(self, path: Path) -> None:
        """Apply facts no imported record carries (an embargo, a category a seed page shows).

        They are applied as staff would apply them, and only where no source set the field.

        Each change is marked as set by staff in the work's provenance, so a re-import keeps
        it, and written to the audit trail with the reason; an unchanged value is left alone.
        """
        for entry in json.loads(path.read_text("utf-8")):
            work = Work.objects.filter(**entry["work"]).first()
            if work is None:
                self.stderr.write(f"demo curation: no work matches {entry['work']}")
                continue
            changes = {}
            for field, raw in entry["set"].items():
                value = datetime.date.fromisoformat(raw) if field == "embargo_until" else raw
                source = work.provenance.get(field)
                if getattr(work, field) and source not in (None, "staff"):
                    continue  # a source set it: its value stands
                if getattr(work, field) != value:
                    changes[field] = {"from": str(getattr(work, field)), "to": raw}
                    setattr(work, field, value)
                    work.provenance[field] = "staff"
            if changes:
                work.save(update_fields=[*entry["set"], "provenance"])
                # Its authors' figures (primary category, AI score) read the curated fields.
                metrics_refresh(work.authorships.values_list("author_id", flat=True))
                audit_record(
                    actor=None,
                    action="work_change",
                    target=work,
                    data={"via": "demo", "changes": changes, "why": entry["why"]},
                )

"""What the import commands share: run an import here and now, with a progress bar."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalogue.models import ImportRun
from ingestion.importing.execution import import_run_execute
from ingestion.importing.requesting import Via, import_run_request


class ImportCommand(BaseCommand):
    def run_import(self, *, source: str, kind: str, parameters: dict) -> ImportRun:
        try:
            run = import_run_request(
                source=source, kind=kind, parameters=parameters, via=Via.COMMAND, send=False
            )
        except ValidationError as exc:
            raise CommandError(
                "; ".join(m for ms in exc.message_dict.values() for m in ms)
            ) from None
        bar = tqdm(desc=f"Importing ({run})", unit="rec", file=self.stderr._out, leave=False)

        def progress(current: ImportRun) -> None:
            if current.total and bar.total != current.total:
                bar.total = current.total
            bar.n = current.processed
            bar.set_postfix(current.counters, refresh=False)
            bar.refresh()

        try:
            run = import_run_execute(run_id=run.pk, progress=progress)
        finally:
            bar.close()
        self.summarise(run)
        return run

    def summarise(self, run: ImportRun) -> None:
        counters = {
            key: run.counters.get(key, 0) for key in ("created", "updated", "unchanged", "problems")
        }
        line = ", ".join(f"{value} {key}" for key, value in counters.items())
        style = self.style.SUCCESS if run.status == ImportRun.Status.SUCCEEDED else self.style.ERROR
        self.stdout.write(style(f"Import #{run.pk} {run.status}: {run.processed} records: {line}."))
        if run.error:
            self.stdout.write(self.style.ERROR(f"Error: {run.error}"))
        if counters["problems"]:
            self.stdout.write(
                f"Problems are kept with their payloads in the admin: ImportProblem, run {run.pk}."
            )

"""Load the demo data set: records through the real importers, then the people around them."""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from catalogue.models import Author, ImportRun
from devtools import demo_load
from devtools.demo_people import DEMO_PASSWORD, demo_accounts, demo_people_load
from pages.drawing import drawing_deferred


@contextmanager
def quiet_logs():
    """Keep the tasks' INFO lines (dozens per import when they run inline) off the console."""
    logging.disable(logging.INFO)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


class Command(BaseCommand):
    help = (
        "Load the demo data set (devtools/demo/): OpenAlex and arXiv records through the "
        "importers, staff curation, accounts with claims, follows and a conversation, and a "
        "later update. Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--address",
            default=settings.SITE_URL,
            help="Where the site will be served, for the address printed at the end.",
        )

    def handle(self, *args, address: str, **options):
        self.verbose = options["verbosity"] >= 1
        steps = [
            ("OpenAlex researchers, institutions and works", self._openalex),
            ("arXiv feed", self._arxiv),
            ("staff curation", self._curation),
            ("accounts, claims, follows and a conversation", self._people),
            ("a later OpenAlex update (new works, a citation, a namesake)", self._later),
        ]
        # Each step changes records the others change too: their kept parts are drawn
        # once, after the last step, not after each.
        with quiet_logs(), drawing_deferred():
            for number, (label, step) in enumerate(steps, start=1):
                started = time.monotonic()
                outcome = step()
                seconds = time.monotonic() - started
                self._say(f"Demo {number}/{len(steps)}: {label}: {outcome} ({seconds:.1f} s)")
        self._ready(address.rstrip("/"))

    def _say(self, line: str) -> None:
        if self.verbose:
            self.stdout.write(line)

    def _imported(self, run: ImportRun) -> str:
        if run.status != ImportRun.Status.SUCCEEDED:
            raise CommandError(f"Import #{run.pk} {run.status}: {run.error or 'see the admin'}")
        counts = {key: run.counters.get(key, 0) for key in ("created", "updated", "unchanged")}
        problems = run.counters.get("problems", 0)
        if problems:
            raise CommandError(f"Import #{run.pk}: {problems} records could not be imported.")
        return f"{run.processed} records, " + ", ".join(f"{v} {k}" for k, v in counts.items())

    def _openalex(self) -> str:
        return self._imported(demo_load.demo_import_openalex())

    def _arxiv(self) -> str:
        return self._imported(demo_load.demo_import_arxiv())

    def _curation(self) -> str:
        changed = demo_load.demo_curate()
        return f"{changed} work{'s' if changed != 1 else ''} changed"

    def _people(self) -> str:
        loaded = demo_people_load()
        return (
            f"{loaded.accounts} accounts, {loaded.claims} approved claims, "
            f"{loaded.follows} follows, {loaded.messages} messages"
        )

    def _later(self) -> str:
        return self._imported(demo_load.demo_import_later())

    def _ready(self, address: str) -> None:
        researcher = Author.objects.filter(openalex_id="A9000000001").first()
        path = researcher.get_absolute_url() if researcher else "/"
        self._say(self.style.SUCCESS(f"Demo ready. Open {address}{path}"))
        if settings.DEBUG:
            email = demo_accounts()["mira"]
            self._say(
                f"Sign in as {email} (password '{DEMO_PASSWORD}') to see a claimed record, "
                "its inbox and notifications."
            )

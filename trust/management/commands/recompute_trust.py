"""Recompute trust scores now: every visible author, or the ones named."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from trust import services


class Command(BaseCommand):
    help = "Recompute trust scores of every visible author (or of --author ids), in chunks."

    def add_arguments(self, parser):
        parser.add_argument(
            "--author",
            type=int,
            action="append",
            default=[],
            metavar="ID",
            help="Only this author (repeat for more).",
        )
        parser.add_argument(
            "--chunk", type=int, default=services.CHUNK, help="Authors read and written together."
        )
        parser.add_argument("--reason", default="recomputed by hand")

    def handle(self, *args, author: list[int], chunk: int, reason: str, **options):
        if chunk < 1:
            raise CommandError("--chunk must be at least 1.")
        started = time.perf_counter()
        if author:
            summary = services.trust_scores_recompute(author_ids=author, reason=reason)
        else:
            summary = services.trust_scores_recompute_all(reason=reason, chunk=chunk)
        seconds = time.perf_counter() - started
        self.stdout.write(
            f"Recomputed {summary.computed} authors in {seconds:.1f} s; "
            f"{summary.changed} changed score, tier or level."
        )

"""Weigh every name block again: fold provisional records, raise records that may be one,
propose splits of records that look like several people."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from tqdm import tqdm

from catalogue.models import Author
from identity.names import block_key
from ingestion.people.resolving import BLOCKS_PER_TASK, all_blocks, resolve_blocks, send_blocks


class Command(BaseCommand):
    help = (
        "Re-resolve who is who, one name block at a time: provisional records the "
        "evidence puts with another record are folded into it, pairs of records "
        "that may be one person become merge candidates with their evidence, and "
        "records whose works look like several people get a split proposal."
    )

    def add_arguments(self, parser):
        parser.add_argument("--block", action="append", default=[], help="only this name block")
        parser.add_argument(
            "--queue", action="store_true", help="send the blocks to the workers instead"
        )
        parser.add_argument(
            "--rekey", action="store_true", help="recompute every record's name block first"
        )

    def handle(self, *args, block, queue, rekey, **options):
        if rekey:
            self.stdout.write(f"Name blocks recomputed for {rekey_all()} records.")
        keys = sorted(set(block)) or all_blocks()
        if queue:
            sent = send_blocks(keys)
            self.stdout.write(f"{len(keys)} blocks sent in {sent} tasks.")
            return
        totals = {"blocks": 0, "folded": 0, "candidates": 0, "splits": 0}
        for start in tqdm(range(0, len(keys), BLOCKS_PER_TASK), file=self.stderr._out):
            for name, value in resolve_blocks(keys[start : start + BLOCKS_PER_TASK]).items():
                totals[name] += value
        self.stdout.write(
            f"{totals['blocks']} blocks: {totals['folded']} records folded, "
            f"{totals['candidates']} merge candidates raised, "
            f"{totals['splits']} split proposals made."
        )


def rekey_all(chunk: int = 2000) -> int:
    changed = []
    count = 0
    for author in Author.objects.only("pk", "display_name", "name_block").iterator(chunk):
        key = block_key(author.display_name)[:120]
        if key != author.name_block:
            author.name_block = key
            changed.append(author)
        if len(changed) >= chunk:
            count += len(changed)
            Author.objects.bulk_update(changed, ["name_block"])
            changed = []
    count += len(changed)
    Author.objects.bulk_update(changed, ["name_block"])
    return count

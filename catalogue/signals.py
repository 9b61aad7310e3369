"""Signals other apps listen to, so the importer need not know who cares.

``authors_changed`` is sent after an import batch (or a curation decision) has
committed, with the ids of the authors whose works or links changed. The graph
and trust apps connect to it to queue their own recomputation.

``import_run_ended`` lets what was asked for together with an import (an
owner's "add this work") follow the run, however it reached a worker.
"""

from django.dispatch import Signal

# kwargs: author_ids: list[int]; work_ids: list[int] | None, the works whose authors
# may have changed (an import batch knows them: the works it wrote, and the works of
# an author it marked deleted); None when a decision changed the authors themselves.
authors_changed = Signal()

# kwargs: run_id: int, status: str. Sent when an import run has ended (succeeded,
# failed or cancelled), whoever sent it to a worker: the request, beat's watcher
# sending a run that waited for the broker, a resume or a retry.
import_run_ended = Signal()

# kwargs: author_ids: list[int]. Sent when these authors' stored figures (metrics,
# follower counts, Novelty) were written: whatever shows them is stale.
metrics_refreshed = Signal()

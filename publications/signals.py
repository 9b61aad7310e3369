"""Signals other apps listen to, so the importer need not know who cares.

``authors_changed`` is sent after an import batch (or a curation decision) has
committed, with the ids of the authors whose works or links changed. The graph
and trust apps connect to it to queue their own recomputation.
"""

from django.dispatch import Signal

# kwargs: author_ids: list[int]; work_ids: list[int] | None, the works an import
# batch wrote (None when a decision changed authors rather than works).
authors_changed = Signal()

"""Signals other apps listen to, so the importer need not know who cares.

``authors_changed`` is sent after an import batch (or a curation decision) has
committed, with the ids of the authors whose works or links changed. The graph
and trust apps connect to it to queue their own recomputation.
"""

from django.dispatch import Signal

authors_changed = Signal()  # kwargs: author_ids: list[int]

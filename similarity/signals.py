"""Signals of the similarity app, for what shows its results to renew itself."""

from django.dispatch import Signal

# kwargs: work_ids: list[int]. Sent when these works' "More like this" lists are about
# to be replaced, inside the transaction that replaces them.
similarities_stored = Signal()

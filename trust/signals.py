"""Signals of the trust app, for what shows its scores to renew itself."""

from django.dispatch import Signal

# kwargs: author_ids: list[int]. Sent when these authors' trust scores were written.
trust_scored = Signal()

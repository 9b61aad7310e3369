"""Signals sent when evidence about an author record changes.

Each is sent after the change has committed, with ``author_id``. The trust app
recomputes the author's score on each of them.
"""

from django.dispatch import Signal

claim_changed = Signal()  # a claim was approved, rejected, withdrawn or disputed
follow_changed = Signal()  # a user followed or unfollowed the author
report_upheld = Signal()  # staff upheld a misattribution report about the author

"""Import runs: asking for one, getting it to a worker, and carrying it out.

- ``requesting``: the one audited way an import is asked for;
- ``dispatch``: creating, queueing, retrying and sending runs; watching stalled ones;
- ``runs``: a run's state (validation, progress, end, cancel);
- ``execution``: a run from start to end, part by part (``parts``, carried out
  here, by ``processes`` of their own, or as tasks in ``fanout``);
- ``pipeline``: the batches of one part (``preparing``, ``ingesting``,
  ``problems`` and ``quarantine`` for the records that fail, ``positions``);
- ``tuning``: the low-level speed work nothing else needs to read;
- ``sending``: the tasks this package sends, by name.

This package imports nothing itself: import from its modules.
"""

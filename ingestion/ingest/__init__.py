"""Records -> database: upsert, deduplicate, resolve authors, keep provenance.

``works`` writes a batch of work records (with ``authorships``, ``bylines``,
``title_matches``, ``citations``); ``author_records`` writes author and
institution records; ``batch`` holds what a batch is handed and reports.
This package imports nothing itself: import from its modules.
"""

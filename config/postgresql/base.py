"""Django's PostgreSQL backend, with bulk writes kept under PostgreSQL's parameter limit.

Parameters bound by the server (``DATABASE_PREPARED``) are sent one by one, and
PostgreSQL takes at most 65,535 of them a statement. Django's backend knows no
such limit and writes every row of a ``bulk_create`` or ``bulk_update`` in one
statement; here a batch holds at most as many rows as their values fit in it.
"""

from __future__ import annotations

from django.db.backends.postgresql import base, features, operations

PARAMETERS_AT_MOST = 2**16 - 1


class DatabaseFeatures(features.DatabaseFeatures):
    max_query_params = PARAMETERS_AT_MOST


class DatabaseOperations(operations.DatabaseOperations):
    def bulk_batch_size(self, fields, objs) -> int:
        per_row = max(len(fields), 1)
        return max(min(len(objs), PARAMETERS_AT_MOST // per_row), 1)


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures
    ops_class = DatabaseOperations

import json

import orjson
from django.db import models

_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def json_bytes(payload, *, sort_keys: bool = True) -> bytes:
    """``payload`` as JSON text; orjson's when it can write it, else the standard library's.

    orjson refuses an integer past 64 bits and a lone surrogate, which a record
    that is otherwise good may hold (Python's ``json`` reads both). The fallback
    writes the same canonical form (keys sorted, no spaces) with every non-ASCII
    character escaped: the exact integer stays, and ``\\u0000`` or ``\\ud800`` are
    escapes in the text, which a PostgreSQL ``json`` column keeps as written.
    NaN and Infinity become null in orjson's text; the fallback refuses them (ValueError).
    """
    try:
        return orjson.dumps(payload, option=_SORTED if sort_keys else orjson.OPT_NON_STR_KEYS)
    except TypeError:
        text = json.dumps(payload, sort_keys=sort_keys, separators=(",", ":"), allow_nan=False)
        return text.encode("ascii")


class JSONField(models.JSONField):
    """A JSONField that PostgreSQL bulk inserts as plain VALUES rows.

    Django 5.2 bulk-inserts through UNNEST(arrays); psycopg then escapes every
    JSON document again as an array element, in Python, which made payload
    inserts the slowest part of an import. A placeholder opts out of UNNEST.
    """

    def get_placeholder(self, value, compiler, connection):
        return "%s"

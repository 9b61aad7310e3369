from django.db import models


class JSONField(models.JSONField):
    """A JSONField that PostgreSQL bulk inserts as plain VALUES rows.

    Django 5.2 bulk-inserts through UNNEST(arrays); psycopg then escapes every
    JSON document again as an array element, in Python, which made payload
    inserts the slowest part of an import. A placeholder opts out of UNNEST.
    """

    def get_placeholder(self, value, compiler, connection):
        return "%s"

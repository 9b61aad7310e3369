"""How the read API writes values: addresses, and what a record does not have.

One convention for empty values: a value the record does not have (no DOI, no
abstract, no ROR, a name the source left out) is ``null``, never ``""``; every
text and address field is declared nullable in the schema. Lists are ``[]`` when
empty, and counts are numbers (``null`` where a count is not known). Addresses
of our own pages (``url``) are absolute, on the site's public address.
"""

from __future__ import annotations

import threading

from django.db import models
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue.dates import PRECISIONS
from catalogue.links import web_url
from config.sites import absolute_url

_kept = threading.local()


def serialized(serializer_class: type[serializers.Serializer], instance, **context) -> dict:
    """``instance`` as ``serializer_class(instance, context=context).data`` writes it.

    Written by a serializer of that class kept by this thread, its fields built
    once: a serializer builds its fields (a model serializer from the model's
    fields) for every instance it is made for, which costs more than writing a
    record. Not for a serializer that writes a record of its own class inside it.
    """
    kept = getattr(_kept, "serializers", None)
    if kept is None:
        kept = _kept.serializers = {}
    serializer = kept.get(serializer_class)
    if serializer is None:
        serializer = kept[serializer_class] = serializer_class()
    serializer._context = context  # what ``serializer.context`` reads, as __init__ sets it
    try:
        return serializer.to_representation(instance)
    finally:
        serializer._context = {}


class NullForUnknown:
    """A serializer whose text fields say ``null`` for a value the record lacks, never ``""``."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            if isinstance(field, serializers.CharField):
                field.allow_null = True
        return fields

    def to_representation(self, instance):
        data = super().to_representation(instance)
        for name, field in self.fields.items():
            if isinstance(field, serializers.CharField) and data.get(name) == "":
                data[name] = None
        return data


class WebURLField(serializers.URLField):
    """An address served only when it is http(s) with a host, else null (see links.web_url).

    Imports keep no other address, but rows written before they checked may.
    """

    def to_representation(self, value):
        return web_url(value) or None


@extend_schema_field(OpenApiTypes.URI)
class PageURLField(serializers.CharField):
    """The absolute address of one of our pages, from a path (``get_absolute_url``)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value):
        return absolute_url(str(value)) if value else None


class WebURLs(NullForUnknown, serializers.ModelSerializer):
    """A model serializer whose URL fields go through ``WebURLField``."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.URLField: WebURLField,
    }


class PublicationDate(serializers.Serializer):
    """A work's publication date only as precisely as its source gives it (docs/DATES.md)."""

    publication_date = serializers.CharField(
        source="published.iso",
        read_only=True,
        allow_null=True,
        help_text='ISO 8601 to the source\'s precision: "2003", "2003-05" or "2003-05-17".',
    )
    publication_date_precision = serializers.ChoiceField(
        choices=PRECISIONS,
        source="published.precision",
        read_only=True,
        allow_null=True,
        help_text="How much of the date the source gives; null when it gives none.",
    )

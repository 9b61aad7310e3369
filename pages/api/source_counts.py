"""An author's record as its source gives it, in the read API: the source's own counts,
and the affiliation history with where each place comes from."""

from __future__ import annotations

from rest_framework import serializers

from pages.api.fields import NullForUnknown


class YearCountSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    works = serializers.IntegerField(allow_null=True)
    citations = serializers.IntegerField(allow_null=True)


class SourceCountsSerializer(serializers.Serializer):
    """What the source's author record counts for the whole record, and when it said so.

    None of these is computed here: an author's ``metrics`` count only the works held
    here, which may be fewer (``metrics.works_count`` below ``works_count``).
    """

    source = serializers.CharField(source="counts_source", help_text='"openalex"')
    as_of = serializers.DateTimeField(
        source="counts_as_of",
        allow_null=True,
        help_text="When the source last updated the record these counts come from.",
    )
    works_count = serializers.IntegerField(source="source_works_count", allow_null=True)
    cited_by_count = serializers.IntegerField(source="source_cited_by_count", allow_null=True)
    h_index = serializers.IntegerField(source="source_h_index", allow_null=True)
    i10_index = serializers.IntegerField(source="source_i10_index", allow_null=True)
    two_year_mean_citedness = serializers.FloatField(
        source="source_mean_citedness", allow_null=True
    )
    topics_count = serializers.IntegerField(
        source="source_topics_count", allow_null=True, help_text="Topics the record lists."
    )
    counts_by_year = YearCountSerializer(source="source_counts_by_year", many=True)


class InstitutionEntrySerializer(NullForUnknown, serializers.Serializer):
    """One place of the whole affiliation history, the current one first."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    ror = serializers.CharField(allow_blank=True)
    # The first and last year the record places the researcher there; null when it gives none.
    first = serializers.IntegerField(required=False, allow_null=True, default=None)
    last = serializers.IntegerField(required=False, allow_null=True, default=None)
    current = serializers.BooleanField(default=False, help_text="The last known institution.")
    record = serializers.BooleanField(
        default=False, help_text="The source's author record lists this affiliation."
    )
    source = serializers.CharField(
        allow_null=True, default=None, help_text="Who added it: openalex, claim or staff."
    )
    byline_works = serializers.IntegerField(
        default=0, help_text="Works held here whose byline places the author there."
    )
    byline_first = serializers.IntegerField(allow_null=True, default=None)
    byline_last = serializers.IntegerField(allow_null=True, default=None)

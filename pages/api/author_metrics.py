"""An author's metrics in the read API: aggregates computed from the works held here."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue.models import AuthorMetrics
from pages.api.fields import NullForUnknown
from pages.api.novelty import NoveltyFields
from pages.api.source_counts import InstitutionEntrySerializer


class CollaboratorEntrySerializer(NullForUnknown, serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    joint_works = serializers.IntegerField()
    last_year = serializers.IntegerField(allow_null=True)


class TopicEntrySerializer(NullForUnknown, serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    key = serializers.CharField()
    works = serializers.IntegerField(help_text="How many of the author's works are in it.")


class AuthorMetricsSerializer(NoveltyFields, NullForUnknown, serializers.ModelSerializer):
    """Aggregates computed from our records; null means unknown (never a stand-in 0).

    Novelty is counted when the answer is made, with what it compares against."""

    h_index = serializers.SerializerMethodField()
    i10_index = serializers.SerializerMethodField()
    citations_by_year = serializers.DictField(
        child=serializers.IntegerField(), help_text='Citations received per year: {"2021": 12}.'
    )
    collaborators_top = CollaboratorEntrySerializer(many=True, read_only=True)
    topics_top = TopicEntrySerializer(many=True, read_only=True)
    institutions_list = InstitutionEntrySerializer(many=True, read_only=True)  # the whole history

    class Meta:
        model = AuthorMetrics
        fields = [
            "works_count",
            "citations",
            "h_index",
            "i10_index",
            "citations_by_year",
            "topics_count",
            "close_collaborators_count",
            "followers_count",
            "primary_category",
            "ai_score",
            "novelty",
            "novelty_basis",
            "first_year",
            "last_year",
            "collaborators_top",
            "topics_top",
            "institutions_list",
            "computed_at",
            "works_dated_from",
            "works_dated_to",
            "site_citations",
        ]
        extra_kwargs = {
            "site_citations": {"help_text": "Citations of the author's works by works held here."}
        }

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_h_index(self, metrics: AuthorMetrics) -> int | None:
        return None if metrics.citations is None else metrics.h_index

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_i10_index(self, metrics: AuthorMetrics) -> int | None:
        return None if metrics.citations is None else metrics.i10_index

"""An author's Novelty in the read API, with what it compares against (catalogue.novelty)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue.models import AuthorMetrics
from catalogue.novelty import NOVELTY_THRESHOLD, NoveltyBasis, novelty_basis
from pages.api.fields import serialized


class NoveltyBasisSerializer(serializers.Serializer):
    """What ``novelty`` counts and the works it compares against, when it is counted."""

    description = serializers.CharField(
        help_text="In plain words: what is counted, against which works, what is left out."
    )
    new = serializers.IntegerField(help_text="Judged works no earlier work resembles.")
    judged = serializers.IntegerField(help_text="Works with enough earlier works to compare.")
    too_few_earlier = serializers.IntegerField(
        help_text="Works left out: fewer than min_earlier_works earlier works held here."
    )
    unknown = serializers.IntegerField(
        help_text="Works left out: no date or words, or not compared yet."
    )
    threshold = serializers.SerializerMethodField(
        help_text="A work is new when its highest cosine to an earlier work is below this."
    )
    min_earlier_works = serializers.IntegerField(source="comparison.min_earlier")
    judged_after = serializers.DateField(
        source="comparison.judged_after",
        allow_null=True,
        help_text="Works published after this day are judged; null: none has enough earlier works.",
    )
    comparison_works = serializers.IntegerField(
        source="comparison.works",
        help_text="Works held here with a date and a title or abstract, in any field.",
    )
    comparison_first_year = serializers.IntegerField(
        source="comparison.first_year", allow_null=True
    )
    comparison_last_year = serializers.IntegerField(source="comparison.last_year", allow_null=True)

    def get_threshold(self, basis: NoveltyBasis) -> float:
        return NOVELTY_THRESHOLD


class NoveltyFields(serializers.Serializer):
    """``novelty`` and ``novelty_basis``, counted together when the answer is made."""

    novelty = serializers.SerializerMethodField(
        help_text="Share (%) of the judged works that are new; null when none is judged."
    )
    novelty_basis = serializers.SerializerMethodField()

    def _basis(self, metrics: AuthorMetrics) -> NoveltyBasis:
        found = getattr(metrics, "_novelty_basis", None)
        if found is None:
            found = metrics._novelty_basis = novelty_basis(metrics.author_id, metrics)
        return found

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_novelty(self, metrics: AuthorMetrics) -> float | None:
        return self._basis(metrics).percent

    @extend_schema_field(NoveltyBasisSerializer)
    def get_novelty_basis(self, metrics: AuthorMetrics) -> dict:
        return serialized(NoveltyBasisSerializer, self._basis(metrics))

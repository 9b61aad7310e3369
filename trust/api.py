"""The trust score of an author under /api/v1/: score, tier, level, components and history.

An author not scored yet is scored for the answer (and a worker is asked to
store it); ``stored`` says which one the answer is.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.models import Author
from config.api import StrictQueryParams
from trust import scoring, selectors, sending, weights
from trust.models import Tier, TrustScore, TrustScoreHistory


class LinkSerializer(serializers.Serializer):
    label = serializers.CharField()
    url = serializers.CharField(help_text="Absolute address of the page that shows the evidence.")


class ItemSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The item's key in the weights table (see /trust/).")
    label = serializers.CharField()
    points = serializers.IntegerField(help_text="Points earned; negative for penalties.")
    maximum = serializers.IntegerField(help_text="Most points the item can earn (0: penalty).")
    floor = serializers.IntegerField(help_text="Most points a penalty can take (0 otherwise).")
    evidence = serializers.CharField(help_text="The evidence behind the points, in words.")
    links = LinkSerializer(many=True)


class ComponentSerializer(serializers.Serializer):
    key = serializers.ChoiceField(choices=[c.key for c in weights.COMPONENTS])
    label = serializers.CharField()
    points = serializers.IntegerField()
    maximum = serializers.IntegerField()
    floor = serializers.IntegerField()
    items = ItemSerializer(many=True)


class HistorySerializer(serializers.ModelSerializer):
    class Meta:
        model = TrustScoreHistory
        fields = ["score", "tier", "level", "reason", "computed_at"]


class TrustSerializer(serializers.Serializer):
    author = serializers.IntegerField(help_text="The author's id.")
    score = serializers.IntegerField(min_value=0, max_value=100)
    tier = serializers.ChoiceField(choices=Tier.choices)
    tier_label = serializers.CharField()
    level = serializers.IntegerField(min_value=0, max_value=4, help_text="Verification level.")
    level_label = serializers.CharField()
    claim_status = serializers.CharField()
    computed_at = serializers.DateTimeField(
        allow_null=True, help_text="When the stored score was computed; null when not stored."
    )
    stored = serializers.BooleanField(
        help_text="False when no score was stored yet and this one was computed for the answer."
    )
    components = ComponentSerializer(many=True)
    history = HistorySerializer(
        many=True, help_text="Changes of score, tier or level, newest first."
    )


def _absolute(request, components: list[dict]) -> list[dict]:
    for group in components:
        for item in group["items"]:
            item["links"] = [
                {**link, "url": request.build_absolute_uri(link["url"])}
                for link in item["links"]
                if link.get("url")
            ]
    return components


def _body(author_id: int, stored: TrustScore | None, fresh: scoring.Result | None) -> dict:
    if stored is not None:
        score, tier, level = stored.score, stored.tier, stored.level
        claim, stored_components, at = stored.claim_status, stored.components, stored.computed_at
    else:
        score, tier, level = fresh.score, fresh.tier, fresh.level
        claim, stored_components, at = fresh.claim_status, fresh.components_json(), None
    return {
        "author": author_id,
        "score": score,
        "tier": tier,
        "tier_label": weights.tier_label(tier),
        "level": level,
        "level_label": weights.LEVELS[level],
        "claim_status": claim,
        "computed_at": at,
        "stored": stored is not None,
        "components": scoring.expand_components(stored_components),
    }


class AuthorTrustView(StrictQueryParams, APIView):
    @extend_schema(
        operation_id="authors_trust_retrieve",
        summary="An author's trust score",
        description=(
            "Score (0-100), tier, verification level (0-4) and every component with its "
            "points, maximum and evidence, as on the researcher page; the weights are "
            "explained at /trust/. History lists the latest 30 changes."
        ),
        responses=TrustSerializer,
        tags=["authors"],
    )
    def get(self, request, pk: int):
        author = get_object_or_404(Author.objects.visible(), pk=pk)
        stored = selectors.stored_score(author)
        fresh = None
        if stored is None:
            fresh = scoring.score(selectors.author_signals(author.pk))
            sending.trust_score_request(author_id=author.pk)
        body = _body(author.pk, stored, fresh)
        body["components"] = _absolute(request, body["components"])
        body["history"] = TrustScoreHistory.objects.filter(author=author).order_by(
            "-computed_at", "-id"
        )[: selectors.HISTORY_POINTS]
        return Response(TrustSerializer(body).data)

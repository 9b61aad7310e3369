"""The research graph of an author under /api/v1/: nodes and edges as JSON."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.models import Author
from config.api import StrictQueryParams
from graph import neighbourhood
from graph.forms import MAX_MIN_JOINT

EDGE_KINDS = ["coauthor", "wrote", "topic", "affiliation", "cites"]


KINDS_HELP = (
    "Comma-separated kinds to include: person, paper, topic, institution, and "
    "citations (cites edges between the papers shown)."
)
# ?kinds=person,paper: an array of the showable kinds, written comma-separated.
KINDS_PARAMETER = OpenApiParameter(
    "kinds",
    type={
        "type": "array",
        "items": {"type": "string", "enum": list(neighbourhood.SHOWABLE)},
        "minItems": 1,
    },
    style="form",
    explode=False,
    description=KINDS_HELP,
)


class GraphQuerySerializer(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=["slice", "explorer"],
        default="slice",
        help_text="slice: the researcher page's neighbourhood; explorer: two hops, larger.",
    )
    kinds = serializers.CharField(required=False, help_text=KINDS_HELP)
    year_from = serializers.IntegerField(required=False, min_value=1000, max_value=2100)
    year_to = serializers.IntegerField(required=False, min_value=1000, max_value=2100)
    min_joint = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_MIN_JOINT,
        help_text="Fewest joint works (default 2: close collaborators, as the researcher card).",
    )

    def validate_kinds(self, value: str) -> tuple[str, ...]:
        kinds = tuple(k.strip() for k in value.split(",") if k.strip())
        unknown = sorted(set(kinds) - set(neighbourhood.SHOWABLE))
        if unknown or not kinds:
            raise serializers.ValidationError(
                f"Unknown kind {', '.join(unknown) or '(empty)'}; use "
                f"{', '.join(neighbourhood.SHOWABLE)}."
            )
        return kinds

    def validate(self, data):
        low, high = data.get("year_from"), data.get("year_to")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError(
                {"year_to": "The end year comes before the start year."}
            )
        return data


class NodeSerializer(serializers.Serializer):
    id = serializers.CharField(
        help_text="a<author id>, w<work id>, t<topic id> or i<institution id>."
    )
    kind = serializers.ChoiceField(choices=list(neighbourhood.KINDS))
    label = serializers.CharField()
    url = serializers.CharField(help_text="Absolute address of the node's page.")
    weight = serializers.FloatField(help_text="Joint works, works on the topic, people shown…")
    why = serializers.CharField(help_text="Why the node is in the neighbourhood, in words.")
    centre = serializers.BooleanField()
    hop = serializers.IntegerField(help_text="0 for the researcher, 1 or 2 steps away.")
    x = serializers.FloatField(help_text="Layout position in [-1, 1].")
    y = serializers.FloatField()


class EdgeSerializer(serializers.Serializer):
    source = serializers.CharField()
    target = serializers.CharField()
    kind = serializers.ChoiceField(choices=EDGE_KINDS)
    weight = serializers.IntegerField(
        help_text="Joint works for co-author edges, else 1 or a count."
    )
    first_year = serializers.IntegerField(allow_null=True)
    last_year = serializers.IntegerField(allow_null=True)


class GraphSerializer(serializers.Serializer):
    author = serializers.IntegerField()
    nodes = NodeSerializer(many=True)
    edges = EdgeSerializer(many=True)


class AuthorGraphView(StrictQueryParams, APIView):
    query_serializer_class = GraphQuerySerializer

    @extend_schema(
        operation_id="authors_graph_retrieve",
        summary="An author's research graph",
        description=(
            "The neighbourhood drawn on the researcher page (scope=slice) or in the graph "
            "explorer (scope=explorer): close collaborators and the links among them, recent "
            "papers, top topics and institutions, each node with the reason it is there and a "
            "layout position."
        ),
        parameters=[GraphQuerySerializer, KINDS_PARAMETER],  # the path's {id} is the author's
        responses=GraphSerializer,
        tags=["authors"],
    )
    def get(self, request, pk: int):
        author = get_object_or_404(
            Author.objects.visible().select_related("metrics", "last_known_institution"), pk=pk
        )
        query = self.query_serializer_class(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        filters = neighbourhood.Filters(
            kinds=data.get("kinds") or neighbourhood.SHOWABLE,
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            min_joint=data.get("min_joint") or neighbourhood.CLOSE_COLLABORATOR_MIN_WORKS,
        )
        limits = neighbourhood.EXPLORER if data["scope"] == "explorer" else neighbourhood.SLICE
        hood = neighbourhood.build(author, limits=limits, filters=filters)
        body = hood.as_dict()
        for node in body["nodes"]:
            node["url"] = request.build_absolute_uri(node["url"])
        return Response(GraphSerializer(body).data)

"""Follows under /api/v1/follows/: the caller's follows, follow, unfollow.

Signed-in callers only, by session (with its CSRF token) or by an API token
(``Authorization: Token <key>``); each caller sees and changes only their own
follows. Following and unfollowing are idempotent and rate-limited per user
(429 in the error shape).
"""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.utils.decorators import method_decorator
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import APIException
from rest_framework.response import Response

from catalogue.models import Author
from config.api import ID_PATTERN, StrictQueryParams
from config.ratelimits import ratelimit
from profiles.following import services as following
from profiles.models import Follow


class FollowRefused(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "follow_refused"
    default_detail = "This author cannot be followed."


class FollowSerializer(serializers.ModelSerializer):
    author_name = serializers.CharField(source="author.display_name", read_only=True)
    author_url = serializers.SerializerMethodField(help_text="The researcher's page.")
    followers_count = serializers.IntegerField(
        read_only=True, help_text="How many people follow this author now."
    )
    followed_at = serializers.DateTimeField(source="created_at", read_only=True)
    citation_alerts_since = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="Since when you hear about new citations of the author's works; null: not.",
    )

    class Meta:
        model = Follow
        fields = [
            "author",
            "author_name",
            "author_url",
            "followers_count",
            "followed_at",
            "citation_alerts_since",
        ]
        read_only_fields = fields

    def get_author_url(self, follow: Follow) -> str:
        path = follow.author.get_absolute_url()
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class FollowCreateSerializer(serializers.Serializer):
    author = serializers.PrimaryKeyRelatedField(
        queryset=Author.objects.all(), help_text="Id of the author to follow."
    )


class FollowUpdateSerializer(serializers.Serializer):
    citation_alerts = serializers.BooleanField(
        help_text="Hear about new citations of the author's works (notifications and digest)."
    )


AUTHOR_ID = OpenApiParameter(
    "author_id", int, OpenApiParameter.PATH, description="Id of the followed author."
)


def _limited(view_method):
    rate = lambda group, request: following.FOLLOW_RATE  # noqa: E731 - read at request time
    return method_decorator(ratelimit(group="follow", key="user", rate=rate, block=True))(
        view_method
    )


class FollowViewSet(
    StrictQueryParams,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = FollowSerializer
    lookup_field = "author_id"
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Follow.objects.none()  # the schema is generated without a signed-in user
        return (
            Follow.objects.filter(user=self.request.user)
            .select_related("author")
            .annotate(followers_count=Count("author__follows"))
            .order_by("-created_at", "-pk")
        )

    @extend_schema(summary="The authors you follow, most recent first")
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Whether you follow this author (404 when you do not)", parameters=[AUTHOR_ID]
    )
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(
        summary="Follow an author",
        request=FollowCreateSerializer,
        responses={201: FollowSerializer, 200: FollowSerializer},
        description="201 when the follow is new, 200 when you already followed the author.",
    )
    @_limited
    def create(self, request, *args, **kwargs):
        given = FollowCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        author = given.validated_data["author"]
        try:
            _, created = following.follow_create(user=request.user, author=author)
        except following.FollowError as exc:
            raise FollowRefused(str(exc)) from None
        follow = self.get_queryset().get(author=author)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(self.get_serializer(follow).data, status=code)

    @extend_schema(
        summary="Turn citation alerts for a followed author on or off",
        parameters=[AUTHOR_ID],
        request=FollowUpdateSerializer,
        responses={200: FollowSerializer},
        description="404 when you do not follow the author.",
    )
    @_limited
    def partial_update(self, request, *args, **kwargs):
        follow = self.get_object()
        given = FollowUpdateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        following.follow_citation_alerts_set(
            user=request.user, author=follow.author, on=given.validated_data["citation_alerts"]
        )
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(
        summary="Unfollow an author",
        parameters=[AUTHOR_ID],
        responses={204: None},
        description="204 whether or not you followed the author (unfollowing is idempotent); "
        "404 when there is no such author.",
    )
    @_limited
    def destroy(self, request, *args, **kwargs):
        author = get_object_or_404(Author, pk=kwargs["author_id"])
        following.follow_delete(user=request.user, author=author)
        return Response(status=status.HTTP_204_NO_CONTENT)

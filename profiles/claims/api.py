"""Claims under /api/v1/claims/: make one, read its status, withdraw it.

Signed-in callers only, by session (with its CSRF token) or by an API token
(``Authorization: Token <key>``). A caller sees their own claims; staff who may
view claims in the admin see all.
Creating claims is rate-limited per user and answers 429 in the error shape.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.decorators import method_decorator
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import APIException
from rest_framework.response import Response

from catalogue.models import Author
from config.api import ID_PATTERN, StrictQueryParams
from config.ratelimits import ratelimit
from profiles.claims import services as claims
from profiles.claims.views import claims_visible_to, orcid_sign_in_enabled
from profiles.models import Claim


class ClaimRefused(APIException):
    """The claim rules do not allow this step; the message says why."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "claim_refused"
    default_detail = "This claim step is not allowed."


class ClaimSerializer(serializers.ModelSerializer):
    author_name = serializers.CharField(source="author.display_name", read_only=True)
    level = serializers.SerializerMethodField(
        help_text="Verification level the claim gives while approved: 3 (ORCID sign-in with "
        "the record's iD) or 4 (reviewed by staff, whatever the evidence); null otherwise."
    )
    review_note = serializers.CharField(
        read_only=True, help_text="Staff's note; the reason when they rejected the claim."
    )

    class Meta:
        model = Claim
        fields = [
            "id",
            "author",
            "author_name",
            "method",
            "status",
            "level",
            "evidence",
            "evidence_links",
            "verified_orcid",
            "review_note",
            "created_at",
            "decided_at",
            "withdrawn_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_level(self, claim: Claim) -> int | None:
        return claims.claim_level(claim) if claim.status == Claim.Status.APPROVED else None


class ClaimCreateSerializer(serializers.Serializer):
    author = serializers.PrimaryKeyRelatedField(
        queryset=Author.objects.all(), help_text="Id of the author record to claim."
    )
    method = serializers.ChoiceField(
        choices=Claim.Method.choices,
        help_text="orcid is approved at once when the caller signed in with the record's "
        "ORCID iD. email records a confirmed address at an institution of the record as "
        "evidence and waits for staff, as evidence does.",
    )
    evidence = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=claims.MAX_EVIDENCE_LENGTH,
        help_text=f"For evidence claims: at least {claims.MIN_EVIDENCE_LENGTH} characters.",
    )
    links = serializers.ListField(
        child=serializers.URLField(max_length=500),
        required=False,
        max_length=claims.MAX_EVIDENCE_LINKS,
        help_text="For evidence claims: pages that show who you are.",
    )


class ClaimViewSet(
    StrictQueryParams,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = ClaimSerializer
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Claim.objects.none()  # the schema is generated without a signed-in user
        seen = claims_visible_to(self.request.user).select_related("author")
        return seen.order_by("-created_at", "-pk")

    @extend_schema(request=ClaimCreateSerializer, responses={201: ClaimSerializer})
    @method_decorator(ratelimit(key="user", rate=claims.CLAIM_RATE, method="POST", block=True))
    def create(self, request, *args, **kwargs):
        """Claim an author record: the answer says if it is approved, pending or disputed."""
        given = ClaimCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        try:
            claim = claims.claim_create(
                user=request.user,
                author=data["author"],
                method=data["method"],
                evidence=data.get("evidence", ""),
                links=data.get("links", []),
                orcid_sign_in=orcid_sign_in_enabled(request),
            )
        except claims.ClaimError as exc:
            raise ClaimRefused(str(exc)) from None
        return Response(ClaimSerializer(claim).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: ClaimSerializer})
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        """Withdraw your pending, disputed or approved claim."""
        claim = get_object_or_404(Claim, pk=pk, user=request.user)
        try:
            claim = claims.claim_withdraw(claim=claim, user=request.user)
        except claims.ClaimError as exc:
            raise ClaimRefused(str(exc)) from None
        return Response(ClaimSerializer(claim).data)

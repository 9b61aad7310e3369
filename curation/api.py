"""The import runs API: staff start, follow, cancel and retry imports."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import APIException
from rest_framework.response import Response

import curation
from catalogue.models import (
    ImportRun,
    Source,
)
from catalogue.permissions import CHANGE, AdminModelPermissions
from config.api import ID_PATTERN, StrictQueryParams
from ingestion.importing.requesting import Via, import_run_request
from ingestion.importing.runs import KINDS


class ImportRunSerializer(serializers.ModelSerializer):
    """An import: what was asked for, and how far it has got."""

    source = serializers.ChoiceField(choices=[Source.OPENALEX, Source.ARXIV])
    # Runs of recorded files are listed too; they are started with manage.py import_file.
    kind = serializers.ChoiceField(
        choices=sorted({ImportRun.Kind.FILE.value} | {k for ks in KINDS.values() for k in ks})
    )
    parameters = serializers.DictField(
        help_text='e.g. {"id": "A5023888391"}, {"dois": ["10.1/x"]}, {"query": "au:smith"}.'
    )
    progress = serializers.SerializerMethodField()

    class Meta:
        model = ImportRun
        fields = [
            "id",
            "source",
            "kind",
            "parameters",
            "status",
            "processed",
            "total",
            "progress",
            "counters",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = [
            "status",
            "processed",
            "total",
            "counters",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_progress(self, run: ImportRun) -> float | None:
        """Share of the known total processed, 0-1; null while the total is unknown."""
        if not run.total:
            return None
        return round(min(run.processed / run.total, 1.0), 4)

    def validate_kind(self, kind: str) -> str:
        if kind == ImportRun.Kind.FILE:  # a path on the server is not for the API to name
            raise serializers.ValidationError(
                "Recorded files are imported with manage.py import_file."
            )
        return kind

    def create(self, validated_data):
        try:
            return import_run_request(
                **validated_data, requested_by=self.context["request"].user, via=Via.API
            )
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class ImportRunViewSet(
    StrictQueryParams,
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """Staff with the import permissions, as in the admin: view to list, add to queue,
    change to cancel or retry."""

    # A token first, so a caller without credentials is told to authenticate (401).
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    serializer_class = ImportRunSerializer
    permission_classes = [AdminModelPermissions]
    admin_actions = {"cancel": CHANGE, "retry": CHANGE}
    queryset = ImportRun.objects.order_by("-created_at", "-id")
    lookup_value_regex = ID_PATTERN

    @extend_schema(request=None, responses={200: ImportRunSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Stop a waiting, queued or running import after its current batch."""
        return self._decide(curation.import_run_cancel)

    @extend_schema(request=None, responses={200: ImportRunSerializer})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Queue a failed or cancelled import again; it resumes from its saved position."""
        return self._decide(curation.import_run_retry)

    def _decide(self, service) -> Response:
        try:
            run = service(run=self.get_object(), actor=self.request.user)
        except ValueError as exc:
            raise ImportStepRefused(str(exc)) from None
        return Response(self.get_serializer(run).data)


class ImportStepRefused(APIException):
    """The run's state does not allow this step; the message says why."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "import_step_refused"
    default_detail = "This import cannot take this step now."

"""Read endpoints for the scholarly record under /api/v1/."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import mixins, permissions, serializers, viewsets

from publications import selectors
from publications.imports import KINDS, import_run_create
from publications.models import Author, Authorship, ImportRun, Institution, Source, Work


class InstitutionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Institution
        fields = ["id", "name", "openalex_id", "ror", "country_code", "homepage_url"]


class AuthorSerializer(serializers.ModelSerializer):
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    last_known_institution = InstitutionSerializer(read_only=True)

    class Meta:
        model = Author
        fields = ["id", "display_name", "url", "openalex_id", "orcid", "last_known_institution"]


class AuthorshipSerializer(serializers.ModelSerializer):
    author_id = serializers.IntegerField(read_only=True)
    display_name = serializers.CharField(source="author.display_name", read_only=True)

    class Meta:
        model = Authorship
        fields = ["position", "author_id", "display_name", "raw_name", "source", "confidence"]


class WorkSerializer(serializers.ModelSerializer):
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    venue = serializers.CharField(source="venue.name", default=None, read_only=True)
    authorships = AuthorshipSerializer(many=True, read_only=True)

    class Meta:
        model = Work
        fields = [
            "id",
            "title",
            "url",
            "type",
            "publication_date",
            "publication_year",
            "venue",
            "doi",
            "arxiv_id",
            "openalex_id",
            "cited_by_count",
            "authorships",
        ]


class AuthorViewSet(viewsets.ReadOnlyModelViewSet):
    """Public author records."""

    serializer_class = AuthorSerializer
    queryset = Author.objects.visible().select_related("last_known_institution").order_by("id")


class WorkViewSet(viewsets.ReadOnlyModelViewSet):
    """Works with their authors in order."""

    serializer_class = WorkSerializer
    queryset = selectors.works_with_authors(Work.objects.visible().order_by("id"))


class ImportRunSerializer(serializers.ModelSerializer):
    """An import: what was asked for, and how far it has got."""

    source = serializers.ChoiceField(choices=[Source.OPENALEX, Source.ARXIV])
    kind = serializers.ChoiceField(choices=sorted(k for ks in KINDS.values() for k in ks))
    parameters = serializers.DictField(
        help_text='e.g. {"id": "A5023888391"}, {"dois": ["10.1/x"]}, {"query": "au:smith"}.'
    )
    progress = serializers.SerializerMethodField()

    class Meta:
        model = ImportRun
        fields = [
            "id", "source", "kind", "parameters", "status", "processed", "total", "progress",
            "counters", "error", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = [
            "status", "processed", "total", "counters", "error", "created_at", "started_at",
            "finished_at",
        ]  # fmt: skip

    def get_progress(self, run: ImportRun) -> float | None:
        """Share of the known total processed, 0-1; null while the total is unknown."""
        if not run.total:
            return None
        return round(min(run.processed / run.total, 1.0), 4)

    def create(self, validated_data):
        try:
            return import_run_create(requested_by=self.context["request"].user, **validated_data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None


class ImportRunViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):  # fmt: skip
    """Staff only: queue an import from OpenAlex or arXiv and follow its progress."""

    serializer_class = ImportRunSerializer
    permission_classes = [permissions.IsAdminUser]
    queryset = ImportRun.objects.order_by("-created_at", "-id")

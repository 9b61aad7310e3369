"""Read endpoints for the scholarly record under /api/v1/."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from publications import selectors
from publications.models import Author, Authorship, Institution, Work


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

"""What a work's sources say of it beyond the work list's fields, in the read API.

The work detail adds the work's language, when the source of its citation count
said it, and how many works it cites (null when no source listed its references).
A work's whole byline (``/works/{id}/authorships/``) gives each name with what the
source says of it: the affiliations as written, the institutions, the ORCID, and
whether it is the corresponding author.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalogue import selectors
from catalogue.citations import references_known
from catalogue.models import Authorship, Institution, Work
from pages.api.fields import NullForUnknown


class SourceFacts(serializers.Serializer):
    """Fields of the work detail; a serializer mixed in adds them to its ``fields``."""

    FIELDS = ("language", "cited_by_count_as_of", "references_count")

    language = serializers.CharField(
        read_only=True, allow_null=True, help_text='The language the source gives ("en").'
    )
    cited_by_count_as_of = serializers.SerializerMethodField(
        help_text="When the source of cited_by_count last updated the record it counted in."
    )
    references_count = serializers.SerializerMethodField(
        help_text="The works it cites; null when no source listed its references."
    )

    def get_field_names(self, declared_fields, info):
        return [*super().get_field_names(declared_fields, info), *self.FIELDS]

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_cited_by_count_as_of(self, work: Work) -> str | None:
        counted = selectors.count_as_of(work)
        return serializers.DateTimeField().to_representation(counted) if counted else None

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_references_count(self, work: Work) -> int | None:
        total = work.references.count()
        return total if references_known(work, total) else None


class BylineInstitutionSerializer(NullForUnknown, serializers.ModelSerializer):
    class Meta:
        model = Institution
        fields = ["id", "name", "openalex_id", "ror"]


class BylineEntrySerializer(NullForUnknown, serializers.ModelSerializer):
    """One name of a work's byline with what its source says of it."""

    author_id = serializers.IntegerField(read_only=True)
    display_name = serializers.CharField(source="author.display_name", read_only=True)
    orcid = serializers.CharField(source="author.orcid", read_only=True, allow_null=True)
    raw_affiliation = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text='Every affiliation the source writes for the name, joined with "; ".',
    )
    institutions = BylineInstitutionSerializer(many=True, read_only=True)

    class Meta:
        model = Authorship
        fields = [
            "position",
            "author_id",
            "display_name",
            "raw_name",
            "source",
            "confidence",
            "orcid",
            "is_corresponding",
            "raw_affiliation",
            "institutions",
        ]

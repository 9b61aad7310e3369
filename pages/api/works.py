"""Read endpoints for the scholarly record under /api/v1/ (imports: ``api_imports``).

Authors (with their metrics), an author's works, works, topics and institutions
are public and paginated (``?page=``, ``?page_size=`` up to 100); work lists also
by cursor (``?cursor=*``, then each answer's ``next_cursor``: pages.api.paging). Work lists take
the same sorting and filters as the researcher page (catalogue.filters):
``?sort=newest|cited|title&year_from=&year_to=&type=&topic=<key>&has_code=true``;
a value that does not validate, or a parameter the endpoint does not read, answers
400 in the one error shape. Of a work's lists that grow long (a collaboration's
byline, topics, grants) a work gives the first ``FIRST_ROWS`` and their count;
``/works/{id}/authorships/`` pages through the whole byline.

Values follow one convention (``pages.api.fields``): null for what a record does
not have, never ""; ``url`` is the absolute address of the record's page.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from catalogue import citations, identifiers
from catalogue.models import (
    Author,
    Authorship,
    Citation,
    Institution,
    Topic,
    UnlinkedAuthorship,
    Work,
)
from config.api import ID_PATTERN, Pagination, StrictQueryParams
from config.compiled import Compiled
from pages.api.author_metrics import AuthorMetricsSerializer
from pages.api.fields import NullForUnknown, PageURLField, PublicationDate, WebURLs, serialized
from pages.api.filters import (
    AuthorListFilter,
    InstitutionFilter,
    TopicFilter,
    WorkFilterBackend,
    WorkListFilter,
)
from pages.api.http import VersionedRetrieve
from pages.api.paging import CursorPagination
from pages.api.source_counts import SourceCountsSerializer
from pages.api.source_facts import BylineEntrySerializer, SourceFacts
from pages.api.work_detail import detail
from pages.api.work_rows import AFTER_VENUE, DETAIL_STORED, ListedWorks
from pages.conditional import author_records, work_records

# Of a work's lists that grow long (a collaboration's byline, topics, grants) the API
# gives the first rows and their count; /works/{id}/authorships/ pages the byline.
FIRST_ROWS = 100


class InstitutionSerializer(WebURLs):
    class Meta:
        model = Institution
        fields = [
            "id",
            "name",
            "openalex_id",
            "ror",
            "country_code",
            "type",
            "homepage_url",
        ]


class TopicSerializer(NullForUnknown, serializers.ModelSerializer):
    parent = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The broader topic."
    )
    parent_name = serializers.CharField(
        source="parent.name", default=None, read_only=True, allow_null=True
    )

    class Meta:
        model = Topic
        fields = ["id", "key", "name", "kind", "parent", "parent_name"]


class AuthorSerializer(NullForUnknown, serializers.ModelSerializer):
    url = PageURLField(source="get_absolute_url")
    last_known_institution = InstitutionSerializer(read_only=True, allow_null=True)
    works_count = serializers.IntegerField(
        source="metrics.works_count",
        default=None,
        read_only=True,
        allow_null=True,
        help_text="Works held here; the source's own count is in source_counts.",
    )

    class Meta:
        model = Author
        fields = [
            "id",
            "display_name",
            "url",
            "openalex_id",
            "orcid",
            "last_known_institution",
            "works_count",
        ]


class AuthorDetailSerializer(AuthorSerializer):
    metrics = serializers.SerializerMethodField()
    source_counts = serializers.SerializerMethodField()
    works = serializers.SerializerMethodField()

    class Meta(AuthorSerializer.Meta):
        fields = [*AuthorSerializer.Meta.fields, "alternative_names", "metrics", "source_counts"]
        fields += ["works"]

    @extend_schema_field(SourceCountsSerializer(allow_null=True))
    def get_source_counts(self, author: Author) -> dict | None:
        return serialized(SourceCountsSerializer, author) if author.counts_source else None

    @extend_schema_field(AuthorMetricsSerializer(allow_null=True))
    def get_metrics(self, author: Author) -> dict | None:
        metrics = getattr(author, "metrics", None)
        return serialized(AuthorMetricsSerializer, metrics) if metrics else None

    @extend_schema_field(OpenApiTypes.URI)
    def get_works(self, author: Author) -> str:
        """The API address of this author's works."""
        request = self.context.get("request")
        path = f"/api/v1/authors/{author.pk}/works/"
        return request.build_absolute_uri(path) if request else path


class AuthorshipSerializer(NullForUnknown, serializers.ModelSerializer):
    author_id = serializers.IntegerField(read_only=True)
    display_name = serializers.CharField(source="author.display_name", read_only=True)

    class Meta:
        model = Authorship
        fields = ["position", "author_id", "display_name", "raw_name", "source", "confidence"]


class UnlinkedAuthorSerializer(NullForUnknown, serializers.ModelSerializer):
    """A byline position no author record holds: the name as the source printed it."""

    class Meta:
        model = UnlinkedAuthorship
        fields = ["position", "raw_name", "source"]


class WorkSerializer(PublicationDate, WebURLs):
    url = PageURLField(source="get_absolute_url")
    venue = serializers.CharField(
        source="venue.name", default=None, read_only=True, allow_null=True
    )
    authorships = AuthorshipSerializer(
        many=True,
        read_only=True,
        help_text=f"The first {FIRST_ROWS} in byline order; /works/{{id}}/authorships/ pages all.",
    )
    unlinked_authors = UnlinkedAuthorSerializer(
        source="unlinked_authorships",
        many=True,
        read_only=True,
        help_text=f"The first {FIRST_ROWS}.",
    )
    authors_count = serializers.IntegerField(
        source="byline_length", read_only=True, help_text="Names on the whole byline."
    )

    class Meta:
        model = Work
        fields = [
            "id",
            "title",
            "url",
            "type",
            "publication_date",
            "publication_date_precision",
            "publication_year",
            "venue",
            *AFTER_VENUE,
            "authorships",
            "unlinked_authors",
            "authors_count",
        ]


class GrantEntrySerializer(NullForUnknown, serializers.Serializer):
    funder = serializers.CharField(source="funder.name")
    award_id = serializers.CharField(allow_blank=True)


class WorkDetailSerializer(SourceFacts, WorkSerializer):
    """A work; of its topics and grants (a collaboration's run to thousands) the first
    ``FIRST_ROWS`` each, with their counts."""

    topics = serializers.SerializerMethodField()
    grants = serializers.SerializerMethodField()
    topics_count = serializers.SerializerMethodField()
    grants_count = serializers.SerializerMethodField()

    @extend_schema_field(TopicSerializer(many=True))
    def get_topics(self, work: Work) -> list:
        return TopicSerializer(_topics(work)[:FIRST_ROWS], many=True).data

    @extend_schema_field(GrantEntrySerializer(many=True))
    def get_grants(self, work: Work) -> list:
        return GrantEntrySerializer(_grants(work)[:FIRST_ROWS], many=True).data

    def get_topics_count(self, work: Work) -> int:
        return _topics(work).count()

    def get_grants_count(self, work: Work) -> int:
        return _grants(work).count()

    class Meta(WorkSerializer.Meta):
        fields = [
            *WorkSerializer.Meta.fields,
            *DETAIL_STORED,
            "topics",
            "topics_count",
            "grants",
            "grants_count",
        ]


def _topics(work: Work):
    return (
        Topic.objects.filter(work_topics__work=work)
        .select_related("parent")
        .order_by("-work_topics__is_primary", "-work_topics__score", "work_topics__id")
    )


def _grants(work: Work):
    return work.grants.select_related("funder").order_by("funder__name", "award_id", "id")


class CitedWorkSerializer(NullForUnknown, serializers.ModelSerializer):
    url = PageURLField(source="get_absolute_url")

    class Meta:
        model = Work
        fields = ["id", "title", "url", "publication_year", "doi", "arxiv_id", "openalex_id"]


class ReferenceSerializer(NullForUnknown, serializers.ModelSerializer):
    """One work a work cites: always its OpenAlex id, and our work when it is held here."""

    openalex_id = serializers.CharField(source="cited_openalex_id", read_only=True)
    openalex_url = serializers.SerializerMethodField()
    work = CitedWorkSerializer(
        source="cited", read_only=True, allow_null=True, help_text="Null when not held here."
    )

    class Meta:
        model = Citation
        fields = ["openalex_id", "openalex_url", "work"]

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_openalex_url(self, citation: Citation) -> str | None:
        """Null for a local id, which OpenAlex does not know."""
        return identifiers.openalex_url(citation.cited_openalex_id) or None


def _author_detail(author: int):
    return (
        Author.objects.visible()
        .select_related("last_known_institution", "metrics")
        .defer("search_vector")
        .filter(pk=author)
    )


_AUTHOR_DETAIL = Compiled(_author_detail, "author")


class AuthorViewSet(VersionedRetrieve, StrictQueryParams, viewsets.ReadOnlyModelViewSet):
    """Public author records; the detail carries the author's metrics."""

    retrieve_records = author_records
    lookup_value_regex = ID_PATTERN
    queryset = Author.objects.visible().select_related("last_known_institution", "metrics")
    filter_backends = [filters.DjangoFilterBackend]
    filterset_class = AuthorListFilter

    def get_queryset(self):
        return super().get_queryset().order_by("id")

    def get_serializer_class(self):
        return AuthorDetailSerializer if self.action == "retrieve" else AuthorSerializer

    def answer_record(self, request, pk=None, **kwargs):
        """The author as ``AuthorDetailSerializer`` writes it: read in one query with its
        institution and metrics (no list filters), built once per process
        (``config.compiled``), written by a kept serializer."""
        found = _AUTHOR_DETAIL.instances(author=int(pk))
        if not found:
            raise NotFound()
        author = found[0]
        self.check_object_permissions(request, author)
        return Response(serialized(AuthorDetailSerializer, author, **self.get_serializer_context()))


@extend_schema_view(
    list=extend_schema(
        summary="An author's works",
        description="Sorted and filtered as on the researcher page.",
        parameters=[OpenApiParameter("author_pk", int, OpenApiParameter.PATH)],
    )
)
class AuthorWorksViewSet(
    ListedWorks, StrictQueryParams, mixins.ListModelMixin, viewsets.GenericViewSet
):
    """The works of one author."""

    names = FIRST_ROWS
    serializer_class = WorkSerializer
    filter_backends = [WorkFilterBackend]
    filterset_class = WorkListFilter
    pagination_class = CursorPagination
    queryset = Work.objects.none()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Work.objects.none()
        author = Author.objects.visible().filter(pk=self.kwargs["author_pk"]).first()
        if author is None:
            raise NotFound("No author has this id.")
        self.author_id = author.pk
        return Work.objects.visible().filter(authorships__author=author)


class WorkViewSet(ListedWorks, VersionedRetrieve, StrictQueryParams, viewsets.ReadOnlyModelViewSet):
    """Works with their authors in order; the list sorts and filters like the researcher page."""

    names = FIRST_ROWS
    retrieve_records = work_records
    lookup_value_regex = ID_PATTERN
    filter_backends = [WorkFilterBackend]
    filterset_class = WorkListFilter
    # The list pages by number or cursor; a work's own lists (references, citing
    # works, byline) by number.
    pagination_class = CursorPagination

    def get_queryset(self):
        return Work.objects.visible()

    def get_serializer_class(self):
        return WorkDetailSerializer if self.action == "retrieve" else WorkSerializer

    def answer_record(self, request, pk=None, **kwargs):
        """The work as ``WorkDetailSerializer`` writes it (``work_detail``)."""
        found = detail(int(pk), FIRST_ROWS)
        if found is None:
            raise NotFound()
        return Response(found)

    def _paged(self, rows, serializer: type[serializers.Serializer]):
        """One page of ``rows`` written by ``serializer``, with the paging links."""
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(serializer(page, many=True).data)

    def _work(self) -> Work:
        try:
            return Work.objects.visible().get(pk=self.kwargs["pk"])
        except (Work.DoesNotExist, ValueError, TypeError, DjangoValidationError):
            raise NotFound("No work has this id.") from None

    @extend_schema(
        summary="The works a work cites",
        description="Held works first (newest first), then the rest by OpenAlex id.",
        responses=ReferenceSerializer(many=True),
        filters=False,
    )
    @action(
        detail=True,
        filter_backends=[],
        pagination_class=Pagination,
        serializer_class=ReferenceSerializer,
    )
    def references(self, request, pk=None):
        return self._paged(citations.reference_rows(self._work()), ReferenceSerializer)

    @extend_schema(
        summary="The works held here that cite a work",
        description="Newest first. The source's own count is the work's cited_by_count.",
        responses=WorkSerializer(many=True),
        filters=False,
    )
    @action(
        detail=True,
        url_path="cited-by",
        filter_backends=[],
        pagination_class=Pagination,
        serializer_class=WorkSerializer,
    )
    def cited_by(self, request, pk=None):
        return self.listed(citations.citing_works(self._work()))

    @extend_schema(
        summary="A work's whole byline",
        description="The authorships in byline order, a page at a time.",
        responses=BylineEntrySerializer(many=True),
        filters=False,
    )
    @action(
        detail=True,
        filter_backends=[],
        pagination_class=Pagination,
        serializer_class=BylineEntrySerializer,
    )
    def authorships(self, request, pk=None):
        byline = self._work().authorships.select_related("author").order_by("position", "id")
        return self._paged(byline.prefetch_related("institutions"), BylineEntrySerializer)


class TopicViewSet(StrictQueryParams, viewsets.ReadOnlyModelViewSet):
    """Topics: arXiv categories and OpenAlex domains, fields, subfields and topics."""

    lookup_value_regex = ID_PATTERN
    serializer_class = TopicSerializer
    queryset = Topic.objects.select_related("parent").order_by("name", "id")
    filter_backends = [filters.DjangoFilterBackend]
    filterset_class = TopicFilter


class InstitutionViewSet(StrictQueryParams, viewsets.ReadOnlyModelViewSet):
    """Institutions that authors are or were affiliated with."""

    lookup_value_regex = ID_PATTERN
    serializer_class = InstitutionSerializer
    queryset = Institution.objects.order_by("name", "id")
    filter_backends = [filters.DjangoFilterBackend]
    filterset_class = InstitutionFilter

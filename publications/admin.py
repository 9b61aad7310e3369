from django.contrib import admin

from publications import models


@admin.register(models.Institution)
class InstitutionAdmin(admin.ModelAdmin):
    list_display = ["name", "country_code", "type", "homepage_domain", "ror", "openalex_id"]
    list_filter = ["type", "country_code"]
    search_fields = ["name", "ror", "openalex_id", "homepage_domain"]


@admin.register(models.Venue)
class VenueAdmin(admin.ModelAdmin):
    list_display = ["name", "type", "publisher", "issn_l", "openalex_id"]
    list_filter = ["type"]
    search_fields = ["name", "issn_l", "openalex_id", "publisher"]


@admin.register(models.Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "key", "parent"]
    list_filter = ["kind"]
    search_fields = ["name", "key"]
    list_select_related = ["parent"]
    raw_id_fields = ["parent"]


@admin.register(models.Funder)
class FunderAdmin(admin.ModelAdmin):
    list_display = ["name", "openalex_id", "ror"]
    search_fields = ["name", "openalex_id", "ror"]


class AuthorshipInline(admin.TabularInline):
    model = models.Authorship
    extra = 0
    raw_id_fields = ["author", "work"]
    fields = ["position", "author", "work", "raw_name", "raw_affiliation", "source", "confidence"]
    ordering = ["position"]


@admin.register(models.Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = [
        "display_name",
        "orcid",
        "openalex_id",
        "last_known_institution",
        "is_deleted",
        "merged_into",
        "created_at",
    ]
    list_filter = ["is_deleted", ("merged_into", admin.EmptyFieldListFilter), "created_at"]
    search_fields = ["display_name", "normalized_name", "orcid", "openalex_id"]
    list_select_related = ["last_known_institution", "merged_into"]
    raw_id_fields = ["last_known_institution", "merged_into"]
    readonly_fields = ["created_at", "updated_at"]


@admin.register(models.AuthorMetrics)
class AuthorMetricsAdmin(admin.ModelAdmin):
    list_display = [
        "author",
        "works_count",
        "citations",
        "h_index",
        "i10_index",
        "followers_count",
        "primary_category",
        "computed_at",
    ]
    search_fields = ["author__display_name"]
    list_select_related = ["author"]
    raw_id_fields = ["author"]


@admin.register(models.Work)
class WorkAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "type",
        "publication_year",
        "venue",
        "doi",
        "arxiv_id",
        "openalex_id",
        "cited_by_count",
        "created_at",
    ]
    list_filter = [
        "type",
        "is_retracted",
        "is_open_access",
        "publication_year",
        "arxiv_primary_category",
    ]
    search_fields = ["title", "doi", "arxiv_id", "openalex_id"]
    list_select_related = ["venue"]
    raw_id_fields = ["venue", "merged_into"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [AuthorshipInline]


@admin.register(models.Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ["work", "author", "position", "raw_name", "source", "confidence"]
    list_filter = ["source"]
    search_fields = ["raw_name", "author__display_name", "work__title"]
    list_select_related = ["work", "author"]
    raw_id_fields = ["work", "author"]
    filter_horizontal = ["institutions"]


@admin.register(models.WorkTopic)
class WorkTopicAdmin(admin.ModelAdmin):
    list_display = ["work", "topic", "score", "is_primary", "source"]
    list_filter = ["source", "is_primary", "topic__kind"]
    search_fields = ["work__title", "topic__name"]
    list_select_related = ["work", "topic"]
    raw_id_fields = ["work", "topic"]


@admin.register(models.Grant)
class GrantAdmin(admin.ModelAdmin):
    list_display = ["funder", "award_id", "work"]
    search_fields = ["award_id", "funder__name", "work__title"]
    list_select_related = ["funder", "work"]
    raw_id_fields = ["work", "funder"]


@admin.register(models.WorkSimilarity)
class WorkSimilarityAdmin(admin.ModelAdmin):
    list_display = ["work", "similar", "score", "computed_at"]
    search_fields = ["work__title", "similar__title"]
    list_select_related = ["work", "similar"]
    raw_id_fields = ["work", "similar"]


@admin.register(models.SourceRecord)
class SourceRecordAdmin(admin.ModelAdmin):
    list_display = ["external_id", "source", "entity", "work", "author", "fetched_at"]
    list_filter = ["source", "entity"]
    search_fields = ["external_id"]
    list_select_related = ["work", "author"]
    raw_id_fields = ["work", "author", "import_run"]
    readonly_fields = ["content_hash", "first_seen_at"]


@admin.register(models.ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "status",
        "processed",
        "total",
        "counters",
        "created_at",
        "finished_at",
        "requested_by",
    ]
    list_filter = ["status", "source", "kind"]
    search_fields = ["parameters", "error"]
    list_select_related = ["requested_by"]
    readonly_fields = ["created_at", "started_at", "finished_at", "task_id"]


@admin.register(models.ImportProblem)
class ImportProblemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "source", "status", "short_error", "run", "created_at"]
    list_filter = ["status", "source"]
    search_fields = ["external_id", "error"]
    list_select_related = ["run"]
    raw_id_fields = ["run", "resolved_by"]

    @admin.display(description="error")
    def short_error(self, obj):
        return obj.error[:120]


@admin.register(models.MergeCandidate)
class MergeCandidateAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "reason", "score", "status", "created_at", "decided_by"]
    list_filter = ["kind", "status"]
    search_fields = [
        "reason",
        "work_a__title",
        "work_b__title",
        "author_a__display_name",
        "author_b__display_name",
    ]
    list_select_related = ["work_a", "work_b", "author_a", "author_b", "decided_by"]
    raw_id_fields = ["work_a", "work_b", "author_a", "author_b", "decided_by"]


@admin.register(models.LinkConstraint)
class LinkConstraintAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kind", "source", "created_by", "created_at"]
    list_filter = ["kind", "source"]
    search_fields = ["author__display_name", "work__title", "reason"]
    list_select_related = ["author", "work", "other_author", "other_work", "created_by"]
    raw_id_fields = ["author", "work", "other_author", "other_work", "created_by"]


@admin.register(models.AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id", "target_repr"]
    list_filter = ["action", "target_type"]
    search_fields = ["target_repr", "target_id", "actor__email", "actor__username"]
    list_select_related = ["actor"]
    date_hierarchy = "created_at"

    def has_change_permission(self, request, obj=None):
        return False  # the audit trail is append-only

    def has_delete_permission(self, request, obj=None):
        return False

from django.contrib import admin

from curation.admin.audit import AuditedModelAdmin
from trust import models


@admin.register(models.TrustScore)
class TrustScoreAdmin(AuditedModelAdmin):
    list_display = ["author", "score", "tier", "level", "computed_at"]
    list_filter = ["tier", "level"]
    search_fields = ["author__display_name"]
    list_select_related = ["author"]
    raw_id_fields = ["author"]


@admin.register(models.TrustScoreHistory)
class TrustScoreHistoryAdmin(AuditedModelAdmin):
    list_display = ["author", "score", "tier", "level", "reason", "computed_at"]
    list_filter = ["tier", "level"]
    search_fields = ["author__display_name", "reason"]
    list_select_related = ["author"]
    raw_id_fields = ["author"]

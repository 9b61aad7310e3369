from django.contrib import admin

from curation.admin.audit import AuditedModelAdmin
from graph import models


@admin.register(models.CoauthorEdge)
class CoauthorEdgeAdmin(AuditedModelAdmin):
    list_display = [
        "author_low",
        "author_high",
        "joint_works",
        "first_year",
        "last_year",
        "updated_at",
    ]
    list_filter = ["last_year"]
    search_fields = ["author_low__display_name", "author_high__display_name"]
    list_select_related = ["author_low", "author_high"]
    raw_id_fields = ["author_low", "author_high"]

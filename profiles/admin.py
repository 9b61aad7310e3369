from django.contrib import admin

from profiles import models


@admin.register(models.Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["author", "user", "tagline", "open_to_collaborate", "updated_at"]
    list_filter = ["open_to_collaborate"]
    search_fields = ["author__display_name", "user__email", "tagline"]
    list_select_related = ["author", "user"]
    raw_id_fields = ["author", "user"]
    filter_horizontal = ["pinned_works"]


@admin.register(models.Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["author", "user", "method", "status", "created_at", "decided_at", "reviewer"]
    list_filter = ["status", "method"]
    search_fields = ["author__display_name", "user__email", "evidence"]
    list_select_related = ["author", "user", "reviewer"]
    raw_id_fields = ["author", "user", "reviewer"]


@admin.register(models.Follow)
class FollowAdmin(admin.ModelAdmin):
    list_display = ["user", "author", "created_at"]
    search_fields = ["user__email", "author__display_name"]
    list_select_related = ["user", "author"]
    raw_id_fields = ["user", "author"]


@admin.register(models.Preferences)
class PreferencesAdmin(admin.ModelAdmin):
    list_display = ["user", "email_digest", "following_seen_at", "digest_sent_at"]
    list_filter = ["email_digest"]
    search_fields = ["user__email"]
    raw_id_fields = ["user"]


@admin.register(models.Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "text", "created_at", "read_at"]
    list_filter = ["kind"]
    search_fields = ["user__email", "text"]
    list_select_related = ["user"]
    raw_id_fields = ["user", "author", "work"]


class MessageInline(admin.TabularInline):
    model = models.Message
    extra = 0
    raw_id_fields = ["sender"]


@admin.register(models.Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["sender", "recipient", "topic", "status", "created_at", "responded_at"]
    list_filter = ["status"]
    search_fields = ["sender__email", "recipient__author__display_name", "topic"]
    list_select_related = ["sender", "recipient__author"]
    raw_id_fields = ["sender", "recipient"]
    inlines = [MessageInline]


@admin.register(models.Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["invitation", "sender", "created_at", "read_at"]
    search_fields = ["body", "sender__email"]
    list_select_related = ["invitation", "sender"]
    raw_id_fields = ["invitation", "sender"]


@admin.register(models.Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ["blocker", "blocked", "created_at"]
    search_fields = ["blocker__email", "blocked__email"]
    raw_id_fields = ["blocker", "blocked"]


@admin.register(models.Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = [
        "kind",
        "reporter",
        "reported_user",
        "author",
        "status",
        "created_at",
        "handled_by",
    ]
    list_filter = ["kind", "status"]
    search_fields = ["reason", "reporter__email", "author__display_name"]
    list_select_related = ["reporter", "reported_user", "author", "handled_by"]
    raw_id_fields = [
        "reporter",
        "reported_user",
        "invitation",
        "message",
        "author",
        "work",
        "handled_by",
    ]

"""Every page of the profiles app, in the ``profiles`` namespace.

Mounted at the site root: researcher pages live under ``researchers/``, claims under
``claims/``, following under ``following/``, collaboration under ``inbox/`` and
``notifications/``.
"""

from django.urls import include, path

from pages import exports as export_views
from pages import maybe_you_views
from pages import researchers as views
from pages.feeds import researcher_feed
from profiles.claims import views as claim_views
from profiles.collaboration import views as collaboration_views
from profiles.following import views as following_views

app_name = "profiles"

researcher_pages = [
    path("orcid/<str:value>/", views.researcher_by_orcid, name="researcher_by_orcid"),
    path("openalex/<str:value>/", views.researcher_by_openalex, name="researcher_by_openalex"),
    path("<int:pk>-<slug:slug>/", views.researcher_detail, name="researcher"),
    path("<int:pk>/", views.researcher_detail, name="researcher_short"),
    path("<int:pk>/feed.atom", researcher_feed, name="researcher_feed"),
    *(
        path(
            f"<int:pk>/export.{extension}",
            export_views.researcher_export,
            {"extension": extension},
            name=f"researcher_export_{extension}",
        )
        for extension in ("bib", "ris", "json")
    ),
]

claim_pages = [
    path("researchers/<int:pk>/claim/", claim_views.claim_start, name="claim"),
    path("researchers/<int:pk>/edit/", claim_views.profile_edit, name="profile_edit"),
    path("researchers/<int:pk>/works/add/", claim_views.work_add, name="work_add"),
    path("researchers/<int:pk>/works/<int:work_pk>/pin/", claim_views.work_pin, name="work_pin"),
    path(
        "researchers/<int:pk>/works/<int:work_pk>/unpin/",
        claim_views.work_unpin,
        name="work_unpin",
    ),
    path(
        "researchers/<int:pk>/works/<int:work_pk>/not-mine/",
        claim_views.work_disown,
        name="work_disown",
    ),
    path(
        "researchers/<int:pk>/works/<int:work_pk>/restore/",
        claim_views.work_restore,
        name="work_restore",
    ),
    path(
        "researchers/<int:pk>/maybe-you/records/<int:other_pk>/join/",
        maybe_you_views.record_join,
        name="maybe_you_record_join",
    ),
    path(
        "researchers/<int:pk>/maybe-you/bylines/<int:work_pk>/<int:position>/join/",
        maybe_you_views.byline_join,
        name="maybe_you_byline_join",
    ),
    path(
        "researchers/<int:pk>/maybe-you/candidates/<int:candidate_pk>/not-me/",
        maybe_you_views.candidate_not_me,
        name="maybe_you_not_me",
    ),
    path(
        "researchers/<int:pk>/maybe-you/requests/<int:request_pk>/undo/",
        maybe_you_views.request_undo,
        name="maybe_you_undo",
    ),
    path("claims/", claim_views.claim_list, name="claim_list"),
    path("claims/<int:pk>/", claim_views.claim_detail, name="claim_detail"),
    path("claims/<int:pk>/withdraw/", claim_views.claim_withdraw, name="claim_withdraw"),
    path("api-token/", claim_views.api_token, name="api_token"),
]

following_pages = [
    path("researchers/<int:pk>/follow/", following_views.follow, name="follow"),
    path("researchers/<int:pk>/unfollow/", following_views.unfollow, name="unfollow"),
    path(
        "researchers/<int:pk>/citation-alerts/",
        following_views.citation_alerts,
        name="citation_alerts",
    ),
    path("following/", following_views.following_page, name="following"),
    path("following/digest/", following_views.digest_preferences, name="digest_preferences"),
]

collaboration_pages = [
    path("researchers/<int:pk>/invite/", collaboration_views.invite, name="invite"),
    path("researchers/<int:pk>/report/", collaboration_views.report_work, name="report_work"),
    path("inbox/", collaboration_views.inbox, name="inbox"),
    path("inbox/<int:pk>/", collaboration_views.conversation, name="conversation"),
    path("inbox/<int:pk>/accept/", collaboration_views.invitation_accept, name="invitation_accept"),
    path(
        "inbox/<int:pk>/decline/", collaboration_views.invitation_decline, name="invitation_decline"
    ),
    path("inbox/<int:pk>/block/", collaboration_views.block, name="block"),
    path(
        "inbox/<int:pk>/report/",
        collaboration_views.report_conversation,
        name="report_conversation",
    ),
    path("inbox/blocks/<int:pk>/remove/", collaboration_views.unblock, name="unblock"),
    path("notifications/", collaboration_views.notifications, name="notifications"),
]

urlpatterns = [
    path("researchers/", include(researcher_pages)),
    *claim_pages,
    *following_pages,
    *collaboration_pages,
]

from django.urls import path

from profiles import social_views as views

urlpatterns = [
    path("researchers/<int:pk>/follow/", views.follow, name="follow"),
    path("researchers/<int:pk>/unfollow/", views.unfollow, name="unfollow"),
    path("researchers/<int:pk>/citation-alerts/", views.citation_alerts, name="citation_alerts"),
    path("researchers/<int:pk>/invite/", views.invite, name="invite"),
    path("researchers/<int:pk>/report/", views.report_work, name="report_work"),
    path("following/", views.following_page, name="following"),
    path("following/digest/", views.digest_preferences, name="digest_preferences"),
    path("inbox/", views.inbox, name="inbox"),
    path("inbox/<int:pk>/", views.conversation, name="conversation"),
    path("inbox/<int:pk>/accept/", views.invitation_accept, name="invitation_accept"),
    path("inbox/<int:pk>/decline/", views.invitation_decline, name="invitation_decline"),
    path("inbox/<int:pk>/block/", views.block, name="block"),
    path("inbox/<int:pk>/report/", views.report_conversation, name="report_conversation"),
    path("inbox/blocks/<int:pk>/remove/", views.unblock, name="unblock"),
    path("notifications/", views.notifications, name="notifications"),
]

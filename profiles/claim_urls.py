from django.urls import path

from profiles import claim_views as views

urlpatterns = [
    path("researchers/<int:pk>/claim/", views.claim_start, name="claim"),
    path("researchers/<int:pk>/edit/", views.profile_edit, name="profile_edit"),
    path("researchers/<int:pk>/works/add/", views.work_add, name="work_add"),
    path("researchers/<int:pk>/works/<int:work_pk>/pin/", views.work_pin, name="work_pin"),
    path("researchers/<int:pk>/works/<int:work_pk>/unpin/", views.work_unpin, name="work_unpin"),
    path(
        "researchers/<int:pk>/works/<int:work_pk>/not-mine/",
        views.work_disown,
        name="work_disown",
    ),
    path(
        "researchers/<int:pk>/works/<int:work_pk>/restore/",
        views.work_restore,
        name="work_restore",
    ),
    path("claims/", views.claim_list, name="claim_list"),
    path("claims/<int:pk>/", views.claim_detail, name="claim_detail"),
    path("claims/<int:pk>/withdraw/", views.claim_withdraw, name="claim_withdraw"),
    path("api-token/", views.api_token, name="api_token"),
]

from django.urls import path

from profiles import views

researcher_patterns = (
    [
        path("<int:pk>-<slug:slug>/", views.researcher_detail, name="detail"),
        path("<int:pk>/", views.researcher_detail, name="short"),
    ],
    "researchers",
)

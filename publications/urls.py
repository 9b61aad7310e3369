from django.urls import path

from publications import views

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
]

work_patterns = (
    [
        path("<int:pk>-<slug:slug>/", views.work_detail, name="detail"),
        path("<int:pk>/", views.work_detail, name="short"),
    ],
    "works",
)

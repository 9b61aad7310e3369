from django.urls import path

from publications import views

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    *(
        path(
            f"search/export.{extension}",
            views.search_export,
            {"extension": extension},
            name=f"search-export-{extension}",
        )
        for extension in ("bib", "ris", "json")
    ),
]

work_patterns = (
    [
        path("<int:pk>-<slug:slug>/", views.work_detail, name="detail"),
        path("<int:pk>/", views.work_detail, name="short"),
        path("<int:pk>/export.bib", views.work_export_bibtex, name="export-bib"),
        path("<int:pk>/export.ris", views.work_export_ris, name="export-ris"),
        path("doi/<path:value>/", views.work_by_external_id, {"scheme": "doi"}, name="by-doi"),
        path(
            "arxiv/<path:value>/", views.work_by_external_id, {"scheme": "arxiv"}, name="by-arxiv"
        ),
        path(
            "openalex/<path:value>/",
            views.work_by_external_id,
            {"scheme": "openalex"},
            name="by-openalex",
        ),
    ],
    "works",
)

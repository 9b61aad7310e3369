from django.urls import path

from profiles import export_views, views
from profiles.feeds import researcher_feed

researcher_patterns = (
    [
        path("orcid/<str:value>/", views.researcher_by_orcid, name="by_orcid"),
        path("openalex/<str:value>/", views.researcher_by_openalex, name="by_openalex"),
        path("<int:pk>-<slug:slug>/", views.researcher_detail, name="detail"),
        path("<int:pk>/", views.researcher_detail, name="short"),
        path("<int:pk>/feed.atom", researcher_feed, name="feed"),
        *(
            path(
                f"<int:pk>/export.{extension}",
                export_views.researcher_export,
                {"extension": extension},
                name=f"export-{extension}",
            )
            for extension in ("bib", "ris", "json")
        ),
    ],
    "researchers",
)

"""Every page of the publications app, in the ``publications`` namespace.

The home page and search at the site root; works under ``works/``; institutions,
venues and topics under their own prefixes.
"""

from django.urls import include, path

from pages import works as views
from pages.entities import entity_detail

app_name = "publications"

work_pages = [
    path("<int:pk>-<slug:slug>/", views.work_detail, name="work"),
    path("<int:pk>/", views.work_detail, name="work-short"),
    path("<int:pk>/export.bib", views.work_export_bibtex, name="work-export-bib"),
    path("<int:pk>/export.ris", views.work_export_ris, name="work-export-ris"),
    path("doi/<path:value>/", views.work_by_external_id, {"scheme": "doi"}, name="work-by-doi"),
    path(
        "arxiv/<path:value>/",
        views.work_by_external_id,
        {"scheme": "arxiv"},
        name="work-by-arxiv",
    ),
    path(
        "openalex/<path:value>/",
        views.work_by_external_id,
        {"scheme": "openalex"},
        name="work-by-openalex",
    ),
]


def _entity_pages(kind: str):
    """``<id>-<slug>/`` and the short ``<id>/`` of an institution, venue or topic."""
    return [
        path("<int:pk>-<slug:slug>/", entity_detail, {"kind": kind}, name=kind),
        path("<int:pk>/", entity_detail, {"kind": kind}, name=f"{kind}-short"),
    ]


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
    path("works/", include(work_pages)),
    path("institutions/", include(_entity_pages("institution"))),
    path("venues/", include(_entity_pages("venue"))),
    path("topics/", include(_entity_pages("topic"))),
]

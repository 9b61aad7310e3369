from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.contrib.sitemaps import views as sitemap_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import views
from config.sitemaps import SITEMAPS, sitemap_index

admin.site.site_header = f"{settings.SITE_NAME} administration"
admin.site.site_title = f"{settings.SITE_NAME} admin"
admin.site.index_title = "Curation"

# Swagger UI's script comes from its own URL (the split view), so the docs keep the
# site's script policy; only its stylesheet's icons need data: images.
api_docs = csp_update({"img-src": ["data:"]})(
    SpectacularSwaggerSplitView.as_view(url_name="schema")
)

api_v1 = [
    path("", include("pages.api.urls")),
    path("", include("graph.api_urls")),
    path("", include("trust.api_urls")),
    path("", include("profiles.api_urls")),
]

urlpatterns = [
    path("", include("pages.urls.publications")),
    path("", include("pages.urls.profiles")),
    path("", include("graph.urls")),
    path("", include("trust.urls")),
    path("sitemap.xml", sitemap_index, {"sitemaps": SITEMAPS}, name="sitemap"),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("favicon.ico", views.favicon, name="favicon"),
    path("healthz", views.readiness, name="healthz"),  # kept for monitors that know it
    path("healthz/live", views.liveness, name="healthz-live"),
    path("healthz/ready", views.readiness, name="healthz-ready"),
    path("robots.txt", views.robots_txt, name="robots"),
    path("status/", views.status, name="status"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include((api_v1, "api"), namespace="api")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", api_docs, name="api-docs"),
]

handler400 = "config.views.bad_request"
handler403 = "config.views.permission_denied"
handler404 = "config.views.page_not_found"
handler500 = "config.views.server_error"

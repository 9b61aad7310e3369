"""Views that refuse with Django's PermissionDenied, for tests/config/test_forbidden.py."""

from django.core.exceptions import PermissionDenied
from django.urls import include, path

from config.urls import handler403  # noqa: F401 - the site's own 403 answer


def refuse(request):
    raise PermissionDenied("staff only (a message for the logs)")


urlpatterns = [
    path("forbidden/", refuse),
    path("api/v1/forbidden/", refuse),
    path("", include("config.urls")),
]

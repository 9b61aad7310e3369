"""A page and an API view behind a tight rate limit, for tests/config/test_ratelimit.py."""

from django.http import HttpResponse
from django.urls import include, path
from django_ratelimit.decorators import ratelimit
from rest_framework.decorators import api_view
from rest_framework.response import Response


@ratelimit(key="ip", rate="2/m", block=True)
def page(request):
    return HttpResponse("ok")


@api_view(["POST"])
@ratelimit(key="ip", rate="2/m", block=True)
def endpoint(request):
    return Response({"ok": True})


urlpatterns = [
    path("limited/", page),
    path("api/v1/limited/", endpoint),
    path("", include("config.urls")),
]

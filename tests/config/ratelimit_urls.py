"""A page and an API view behind a tight rate limit, for tests/config/test_ratelimit.py."""

from django.http import HttpResponse
from django.urls import include, path
from rest_framework.decorators import api_view
from rest_framework.response import Response

from config.ratelimits import ratelimit


@ratelimit(key="ip", rate="2/m", block=True)
def page(request):
    return HttpResponse("ok")


@ratelimit(key="ip", rate="1/h", block=True)
def hourly(request):
    return HttpResponse("ok")


@api_view(["POST"])
@ratelimit(key="ip", rate="2/m", block=True)
def endpoint(request):
    return Response({"ok": True})


urlpatterns = [
    path("limited/", page),
    path("hourly/", hourly),
    path("api/v1/limited/", endpoint),
    path("", include("config.urls")),
]

"""Site-wide views: the health check and the error pages."""

from __future__ import annotations

import logging
import uuid

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils import timezone
from django.views.decorators.cache import never_cache
from rest_framework.exceptions import PermissionDenied

from config.api import RATE_LIMIT_MESSAGE, error_response, ratelimited_response
from config.ratelimits import retry_after, wait_phrase
from config.sites import absolute_url

logger = logging.getLogger("config")


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True, "engine": connection.vendor}


def _cache() -> dict:
    key = f"healthz:{uuid.uuid4().hex}"
    cache.set(key, "1", 10)
    if cache.get(key) != "1":
        raise RuntimeError("a value written was not read back")
    cache.delete(key)
    report = {"ok": True, "backend": cache.__class__.__name__}
    if getattr(cache, "unavailable", False):  # config.cache.FallbackRedisCache
        # Pages are served, but each process counts rate limits and keeps pages alone.
        report["fallback"] = "Redis does not answer: this process's memory stands in"
    return report


def _broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "inline (REDIS_URL not set)"}
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=3)
    return {"ok": True, "mode": "redis"}


CHECKS = {"database": _database, "cache": _cache, "broker": _broker}


def _run_checks() -> dict[str, dict]:
    report: dict[str, dict] = {}
    for name, check in CHECKS.items():
        try:
            report[name] = check()
        except Exception as exc:  # any failure means "down"; the reason is reported
            logger.warning("healthz: %s is down: %s", name, exc)
            report[name] = {
                "ok": False,
                "error": str(exc).strip().splitlines()[0][:300]
                if str(exc).strip()
                else type(exc).__name__,
            }
    return report


def bare(request: HttpRequest) -> HttpResponse:
    """The least a page can cost behind the middleware (the benchmarks' reference)."""
    return HttpResponse("ok", content_type="text/plain")


@never_cache
def liveness(request: HttpRequest) -> JsonResponse:
    """The process answers requests: nothing else is asked (a restart would not help it)."""
    return JsonResponse({"status": "ok"})


@never_cache
def readiness(request: HttpRequest) -> JsonResponse:
    """Whether the database, the cache and the broker answer: 503 naming each one down.

    A cache standing in for Redis from memory is ready but ``degraded``: pages are
    served, while rate limits and kept pages are counted per process.
    """
    report = _run_checks()
    down = [name for name, result in report.items() if not result["ok"]]
    degraded = [name for name, result in report.items() if result.get("fallback")]
    status = "unavailable" if down else "degraded" if degraded else "ok"
    body = {"status": status, "down": down, "degraded": degraded, "checks": report}
    return JsonResponse(body, status=503 if down else 200)


# What each check means to a visitor, for the status page.
STATUS_PARTS = {
    "database": ("Records", "Researcher pages, works and accounts are stored and read."),
    "cache": ("Cache", "Pages and rate limits are kept between requests."),
    "broker": ("Background work", "Imports, scores and e-mail digests are queued and run."),
}


@never_cache
def status(request: HttpRequest) -> HttpResponse:
    """The health check for people: which parts of the site work now (JSON stays at /healthz)."""
    report = _run_checks()
    parts = [
        {"name": STATUS_PARTS[name][0], "role": STATUS_PARTS[name][1], "ok": result["ok"]}
        for name, result in report.items()
    ]
    down = not all(part["ok"] for part in parts)
    context = {"parts": parts, "down": down, "checked_at": timezone.now()}
    return render(request, "status.html", context, status=503 if down else 200)


# What crawlers may read: every public page but search results (endless, and each
# a copy of pages that are indexed on their own), accounts, the admin and the API.
ROBOTS_DISALLOWED = ("/search/", "/accounts/", "/admin/", "/api/", "/healthz")


def robots_txt(request: HttpRequest) -> HttpResponse:
    """``/robots.txt``: the pages crawlers leave alone, and where the sitemap is."""
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in ROBOTS_DISALLOWED)]
    lines.append(f"Sitemap: {absolute_url('/sitemap.xml')}")
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "public, max-age=86400"
    return response


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for on pages naming no icon (the admin's own): the
    site's SVG icon, by its static address (so it is served and cached like every asset)."""
    response = redirect(static("img/favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def page_not_found(request: HttpRequest, exception=None):
    if _wants_json(request):
        return error_response(404, "Not found.")
    return render(request, "404.html", {"path": request.path}, status=404)


def permission_denied(request: HttpRequest, exception=None):
    """403 raised outside a view's own handling (PermissionDenied): JSON under /api/."""
    if _wants_json(request):
        return error_response(403, str(PermissionDenied.default_detail))
    return render(request, "403.html", {"path": request.path}, status=403)


def bad_request(request: HttpRequest, exception=None):
    """400 raised outside a view's own handling, e.g. a body past DATA_UPLOAD_MAX_MEMORY_SIZE."""
    if _wants_json(request):
        if isinstance(exception, RequestDataTooBig | TooManyFieldsSent | TooManyFilesSent):
            return error_response(
                413 if isinstance(exception, RequestDataTooBig) else 400,
                "The request is larger than the server accepts.",
                code="too_large",
                details={"max_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE},
            )
        return error_response(400, "The request could not be read.")
    return render(request, "400.html", status=400)


def server_error(request: HttpRequest):
    if _wants_json(request):
        return error_response(500, "The server hit an error; it has been logged.")
    return render(request, "500.html", status=500)


def ratelimited(request: HttpRequest, exception=None) -> HttpResponse:
    """Answer a request refused by a rate limit: 429, JSON under /api/, a sentence to an
    htmx request, a page elsewhere."""
    seconds = retry_after(request)
    if _wants_json(request):
        return ratelimited_response(seconds)
    context = {"message": RATE_LIMIT_MESSAGE, "when": wait_phrase(seconds)}
    if getattr(request, "htmx", False):
        # htmx swaps no error answer in: static/js/htmx-errors.js shows this text in the
        # part of the page that was to change.
        text = (
            f"Too many requests in a short while: nothing was changed. Try again {context['when']}."
        )
        response = HttpResponse(text, content_type="text/plain; charset=utf-8", status=429)
    else:
        response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response

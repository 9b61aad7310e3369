"""Cross-origin reads of the public API: any site's scripts may GET ``/api/v1/``.

Only anonymous reads are shared: GET and HEAD answers under ``API_PREFIX`` carry
``Access-Control-Allow-Origin: *`` and never ``Access-Control-Allow-Credentials``,
so a browser sends no cookie with them and shows another site no answer made for
a signed-in visitor. A preflight (OPTIONS) is answered for GET and HEAD alone;
writes (the staff import API) are never opened to other origins. ``ETag`` is
exposed so a script can make conditional requests. The header is the same for
every request, with or without ``Origin``, so a shared cache may keep one answer.
"""

from __future__ import annotations

from django.http import HttpResponse

API_PREFIX = "/api/v1/"
CLOSED = ("/api/v1/imports",)  # staff only: never shared with other sites
READS = ("GET", "HEAD")
ALLOWED_HEADERS = "Accept, Accept-Language, If-None-Match, If-Modified-Since"
PREFLIGHT_MAX_AGE = "86400"


def shared(path: str) -> bool:
    return path.startswith(API_PREFIX) and not path.startswith(CLOSED)


class PublicReadCorsMiddleware:
    """``Access-Control-Allow-Origin: *`` on the read API's GET and HEAD answers."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not shared(request.path):
            return self.get_response(request)
        asked = request.headers.get("Access-Control-Request-Method", "")
        if request.method == "OPTIONS" and asked and "Origin" in request.headers:
            return self._preflight(asked.upper())
        response = self.get_response(request)
        if request.method in READS:
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = "ETag, Link"
        return response

    def _preflight(self, method: str) -> HttpResponse:
        response = HttpResponse(status=204)
        if method in READS:
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Allow-Methods"] = ", ".join(READS)
            response["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
        return response

"""What every API endpoint shares: paging, strict query parameters and the one error shape.

Every error the API gives, whatever raised it, has this body::

    {"error": {"status": 404, "code": "not_found", "message": "Not found.", "details": null}}

``details`` carries field errors for invalid input and ``retry_after`` (seconds)
when a rate limit answers 429.
"""

from __future__ import annotations

import math

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django_filters.rest_framework import DjangoFilterBackend
from django_ratelimit.exceptions import Ratelimited
from rest_framework import mixins, serializers
from rest_framework.exceptions import (
    APIException,
    NotFound,
    PermissionDenied,
    Throttled,
    ValidationError,
)
from rest_framework.pagination import PageNumberPagination
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from config.ratelimits import DEFAULT_RETRY_AFTER, retry_after

# A record id in an API path: digits that fit a 64-bit column. Any other value matches
# no route and is a 404, before a lookup could fail on it.
ID_PATTERN = "[0-9]{1,18}"

STATUS_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    415: "unsupported_media_type",
    429: "throttled",
    500: "server_error",
    503: "unavailable",
}


class Pagination(PageNumberPagination):
    """``?page=`` and ``?page_size=`` (1 to 100).

    A value that is no number, or a page size out of range, answers 400 (it was
    ignored); a page past the last one answers 404, as in DRF.
    """

    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_number(self, request, paginator):
        number = super().get_page_number(request, paginator)
        if isinstance(number, int) or (number.isascii() and number.isdigit()):
            return number
        raise ValidationError({self.page_query_param: ["Enter a page number."]})

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param, "")
        if raw == "":
            return self.page_size
        size = int(raw) if raw.isascii() and raw.isdigit() else 0
        if not 1 <= size <= self.max_page_size:
            raise ValidationError(
                {self.page_size_query_param: [f"Enter a number from 1 to {self.max_page_size}."]}
            )
        return size

    def get_schema_operation_parameters(self, view):
        """``page`` and ``page_size`` with the bounds the two methods above enforce."""
        bounds = {
            self.page_query_param: {"minimum": 1},
            self.page_size_query_param: {
                "minimum": 1,
                "maximum": self.max_page_size,
                "default": self.page_size,
            },
        }
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters


def _filter_parameters(backend, view) -> set[str]:
    """The query parameters a filter backend reads for ``view``."""
    if isinstance(backend, DjangoFilterBackend):
        filterset = backend.get_filterset_class(view, getattr(view, "queryset", None))
        return set(filterset.base_filters) if filterset else set()
    return {parameter["name"] for parameter in backend.get_schema_operation_parameters(view)}


class StrictQueryParams:
    """Answer 400, naming it, to a query parameter the endpoint does not read.

    A misspelt filter (``?yeer=2020``) would otherwise be dropped silently and the
    whole list answered as if it had applied. An endpoint reads ``format``, the
    fields of its ``query_serializer_class`` and, when it answers a list, its
    paging and filter parameters: what the schema documents for it.
    """

    # The endpoint's own query parameters (it validates them with this serializer).
    query_serializer_class: type[serializers.Serializer] | None = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        known = self.known_query_params()
        unknown = sorted(set(request.query_params) - known)
        if unknown:
            message = f"Unknown query parameter; this endpoint reads {', '.join(sorted(known))}."
            raise ValidationError({name: [message] for name in unknown})

    def known_query_params(self) -> set[str]:
        known = {api_settings.URL_FORMAT_OVERRIDE} - {None}
        if self.query_serializer_class is not None:
            known.update(self.query_serializer_class().fields)
        if self._answers_a_list():
            paginator = getattr(self, "paginator", None)
            if paginator is not None:
                known.update(p["name"] for p in paginator.get_schema_operation_parameters(self))
            for backend in getattr(self, "filter_backends", ()):
                known.update(_filter_parameters(backend(), self))
        return known

    def _answers_a_list(self) -> bool:
        if self.request.method not in ("GET", "HEAD"):
            return False
        action = getattr(self, "action", None)
        if action is None:  # a view that is no viewset
            return isinstance(self, mixins.ListModelMixin)
        return action != "retrieve"


def error_body(status: int, message: str, *, code: str | None = None, details=None) -> dict:
    return {
        "error": {
            "status": status,
            "code": code or STATUS_CODES.get(status, "error"),
            "message": message,
            "details": details,
        }
    }


def error_response(status: int, message: str, **kwargs) -> JsonResponse:
    return JsonResponse(error_body(status, message, **kwargs), status=status)


def _describe(exc: APIException) -> tuple[str, str, object]:
    if isinstance(exc, ValidationError):
        return "invalid", "The request has invalid input; see details.", exc.detail
    if isinstance(exc, Throttled):
        # DRF writes the header with the wait cut down (0.4 s would say "0"): round up.
        wait = max(1, math.ceil(exc.wait or 1))
        return "throttled", RATE_LIMIT_MESSAGE, {"retry_after": wait}
    code = exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code
    return code, str(exc.detail), None


def exception_handler(exc, context):
    if isinstance(exc, Ratelimited):
        return ratelimited_response(retry_after(context.get("request")))
    # Django's own 404 and 403 (get_object_or_404, a permission check) carry text
    # written for logs ("No Work matches the given query."): the API answers DRF's
    # messages for them instead, "Not found." and "You do not have permission...".
    if isinstance(exc, Http404):
        exc = NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # Unexpected errors reach the 500 handler, which answers the same shape.
    if isinstance(exc, APIException):
        code, message, details = _describe(exc)
    else:
        code, message, details = STATUS_CODES.get(response.status_code, "error"), "Error.", None
    response.data = error_body(response.status_code, message, code=code, details=details)
    if isinstance(exc, Throttled):
        response["Retry-After"] = str(details["retry_after"])
    return response


RATE_LIMIT_MESSAGE = "Too many requests: please wait a little and try again."


def ratelimited_response(retry_after: int = DEFAULT_RETRY_AFTER) -> JsonResponse:
    """429 in the one error shape; ``retry_after`` is seconds until the limit lifts."""
    response = JsonResponse(
        error_body(429, RATE_LIMIT_MESSAGE, code="throttled", details={"retry_after": retry_after}),
        status=429,
    )
    response["Retry-After"] = str(retry_after)
    return response


def add_error_responses(result, generator, request, public):
    """drf-spectacular hook: document the Error shape as every operation's default response."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["ErrorBody"] = {
        "type": "object",
        "properties": {
            "status": {"type": "integer"},
            "code": {"type": "string", "example": "not_found"},
            "message": {"type": "string"},
            "details": {"nullable": True, "description": "Field errors, or retry_after for 429."},
        },
        "required": ["status", "code", "message", "details"],
    }
    schemas["Error"] = {
        "type": "object",
        "properties": {"error": {"$ref": "#/components/schemas/ErrorBody"}},
        "required": ["error"],
    }
    default = {
        "description": "Any error, in the one error shape.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("default", default)
    return result

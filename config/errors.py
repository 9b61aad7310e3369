"""Error reports to Sentry (or any service that speaks its protocol), off unless SENTRY_DSN is set.

A report names the request id of the request (or task) that failed, and carries
no cookie, no Authorization header, no request body and no local variables (a
form's password fields have names no scrubber knows); query values and path
parts that hold a token or an address are masked, in the request and in the
breadcrumbs of outgoing calls (OpenAlex's api_key and mailto) alike.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

from config import env
from config.logs import current_request_id

FILTERED = "[Filtered]"
SECRET_HEADERS = {
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-csrftoken",
    "x-api-key",
}
# Query parameters whose values are secrets or personal: keys and tokens, OAuth
# codes and states, signatures, passwords, e-mail addresses.
SECRET_PARAMETER = re.compile(r"token|key|secret|pass|code|state|sig|auth|session|csrf|mail", re.I)
# Paths that carry a one-time key: allauth's e-mail confirmation and password reset.
SECRET_PATH = re.compile(r"(/confirm-email/|/password/reset/key/)[^/?#]+")
SECRET_DATA_KEYS = ("db.params", "http.fragment")


def mask_query(query: str) -> str:
    """The query string with the value of every parameter that may hold a secret masked."""
    pairs = parse_qsl(query, keep_blank_values=True)
    return urlencode(
        [(name, FILTERED if SECRET_PARAMETER.search(name) else value) for name, value in pairs],
        safe="[]",
    )


def mask_url(url: str) -> str:
    """The URL without its fragment, its one-time path keys and its secret query values."""
    address, _, query = url.partition("#")[0].partition("?")
    address = SECRET_PATH.sub(rf"\1{FILTERED}", address)
    return f"{address}?{mask_query(query)}" if query else address


def _scrub_request(request: dict) -> None:
    request.pop("cookies", None)
    request.pop("data", None)
    headers = request.get("headers")
    if isinstance(headers, dict):
        request["headers"] = {
            name: value for name, value in headers.items() if name.lower() not in SECRET_HEADERS
        }
    if isinstance(request.get("query_string"), str):
        request["query_string"] = mask_query(request["query_string"])
    if isinstance(request.get("url"), str):
        request["url"] = mask_url(request["url"])


def _scrub_data(data: object) -> None:
    if not isinstance(data, dict):
        return
    for key in SECRET_DATA_KEYS:
        data.pop(key, None)
    for key in ("url", "http.url"):
        if isinstance(data.get(key), str):
            data[key] = mask_url(data[key])
    if isinstance(data.get("http.query"), str):
        data["http.query"] = mask_query(data["http.query"])


def scrub_event(event: dict, _hint: dict | None = None) -> dict:
    """Sentry's ``before_send``: drop what may be secret or personal, tag the request id."""
    if isinstance(event.get("request"), dict):
        _scrub_request(event["request"])
    breadcrumbs = event.get("breadcrumbs") or {}
    if isinstance(breadcrumbs, dict):
        breadcrumbs = breadcrumbs.get("values") or []
    for crumb in breadcrumbs:
        _scrub_data(crumb.get("data"))
    for span in event.get("spans") or []:
        _scrub_data(span.get("data"))
    request_id = current_request_id.get()
    if request_id:
        event["tags"] = {**(event.get("tags") or {}), "request_id": request_id}
    return event


def init_sentry(
    *, dsn: str | None, environment: str | None, release: str | None, traces_sample_rate: float
) -> bool:
    """Start reporting errors to ``dsn``; without one, do nothing (the SDK is not loaded)."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.utils import BadDsn

    try:
        sentry_sdk.init(
            dsn=dsn,
            integrations=[DjangoIntegration(), CeleryIntegration()],
            send_default_pii=False,
            include_local_variables=False,
            max_request_body_size="never",
            environment=environment,
            release=release,
            traces_sample_rate=traces_sample_rate,
            before_send=scrub_event,
            before_send_transaction=scrub_event,
        )
    except BadDsn as exc:
        raise env.SettingError("SENTRY_DSN", f"not a Sentry DSN ({exc})") from None
    return True

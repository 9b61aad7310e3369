"""Log lines as text or JSON, each naming the request (or task) it came from.

Every request gets an id: the ``X-Request-ID`` a proxy in front sent, when it is
a short plain token, else a fresh one. The response carries it back in
``X-Request-ID``, and every record logged while the request is handled carries
it as ``request_id``. A task queued meanwhile carries it in a message header, so
the worker's records name the request too; a task no request queued is named by
its own task id.

``LOG_FORMAT=json`` writes each record as one JSON object on one line (web,
worker, beat and gunicorn's own logs alike); ``text`` keeps the plain lines.
"""

from __future__ import annotations

import contextvars
import json
import logging
import logging.config
import re
import uuid
from datetime import UTC, datetime

from celery import signals
from django.core.signals import request_finished, request_started
from gunicorn import glogging

REQUEST_ID_HEADER = "X-Request-ID"
# The header is whatever the client sent: only a short plain token is taken, so
# no newline, quote or markup reaches a log line or a response header through it.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
TASK_HEADER = "request_id"
JSON_FORMATTER = "config.logs.JsonFormatter"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
APP_LOGGERS = ("config", "publications", "profiles", "graph", "trust", "celery")
# Loggers that Django's defaults give handlers of their own (DEFAULT_LOGGING).
DJANGO_LOGGERS = ("django", "django.server", "py.warnings")

current_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)
current_task_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "task_id", default=None
)


def safe_request_id(value: object) -> str | None:
    """``value`` if it is a token fit to be a request id, else None."""
    if isinstance(value, str) and SAFE_REQUEST_ID.fullmatch(value):
        return value
    return None


class RequestIdMiddleware:
    """Names each request. First in MIDDLEWARE, so every later record and answer has it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = safe_request_id(request.headers.get(REQUEST_ID_HEADER)) or uuid.uuid4().hex
        request.request_id = request_id
        current_request_id.set(request_id)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response


def _forget_request_id(**_kwargs) -> None:
    current_request_id.set(None)


# The id is kept until the request is finished, not only while the middleware runs:
# Django logs a 4xx answer ("Not Found: ...") after the middleware has returned it.
request_started.connect(_forget_request_id, dispatch_uid="config.logs.started")
request_finished.connect(_forget_request_id, dispatch_uid="config.logs.finished")


def _access_log_request_id(record: logging.LogRecord) -> str | None:
    # gunicorn's access line is written from the answer's headers (its atoms).
    if record.name == "gunicorn.access" and isinstance(record.args, dict):
        return safe_request_id(record.args.get("{x-request-id}o"))
    return None


class RequestIdFilter(logging.Filter):
    """Gives every record the ``request_id`` (and ``task_id``) of the work being done."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = current_request_id.get() or _access_log_request_id(record)
        if getattr(record, "task_id", None) is None:
            record.task_id = current_task_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a record: time (UTC), level, logger, message, request_id, exception.

    json.dumps writes newlines and control characters inside strings as escapes,
    and ``ensure_ascii`` escapes every other character some readers take for a line
    end (U+2028, U+0085): whatever a message holds, one record stays one line.
    """

    def format(self, record: logging.LogRecord) -> str:
        created = datetime.fromtimestamp(record.created, UTC)
        entry = {
            "time": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        task_id = getattr(record, "task_id", None)
        if task_id:
            entry["task_id"] = task_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=True, default=str)


def logging_config(log_format: str, level: str) -> dict:
    """``settings.LOGGING``: every record to stderr, as text or as JSON lines."""
    formatter = {"()": JSON_FORMATTER} if log_format == "json" else {"format": TEXT_FORMAT}
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "config.logs.RequestIdFilter"}},
        "formatters": {"plain": formatter},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["console"], "level": "WARNING"},
        "loggers": {
            name: {"handlers": ["console"], "level": level, "propagate": False}
            for name in APP_LOGGERS
        },
    }
    if log_format == "json":
        # Django's loggers would otherwise keep their own text handlers.
        for name in DJANGO_LOGGERS:
            config["loggers"][name] = {"handlers": ["console"], "level": "INFO", "propagate": False}
    return config


def configure(config: dict) -> None:
    """Django's ``LOGGING_CONFIG``: apply ``config``; in JSON, Python's warnings are records too."""
    logging.config.dictConfig(config)
    formatter = config.get("formatters", {}).get("plain", {})
    logging.captureWarnings(formatter.get("()") == JSON_FORMATTER)


class GunicornLogger(glogging.Logger):
    """gunicorn's error and access logs as JSON lines (``logger_class`` in gunicorn.conf.py)."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        formatter, request_ids = JsonFormatter(), RequestIdFilter()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(formatter)
                handler.addFilter(request_ids)


def log_through_django_settings(**_kwargs) -> None:
    """Celery's ``setup_logging``: the worker and beat keep ``settings.LOGGING``."""
    from django.conf import settings

    configure(settings.LOGGING)


def _send_request_id(headers: dict | None = None, **_kwargs) -> None:
    request_id = current_request_id.get()
    if request_id and headers is not None:
        headers.setdefault(TASK_HEADER, request_id)


def _carried_request_id(task) -> str | None:
    request = getattr(task, "request", None)
    carried = getattr(request, TASK_HEADER, None)  # a worker: headers are request fields
    if carried is None:  # a task applied in-process keeps them in request.headers
        carried = (getattr(request, "headers", None) or {}).get(TASK_HEADER)
    return safe_request_id(carried)


_task_tokens: dict[str, tuple] = {}


def _enter_task(task_id: str | None = None, task=None, **_kwargs) -> None:
    request_id = _carried_request_id(task) or current_request_id.get() or task_id
    _task_tokens[task_id] = (current_request_id.set(request_id), current_task_id.set(task_id))


def _leave_task(task_id: str | None = None, **_kwargs) -> None:
    tokens = _task_tokens.pop(task_id, None)
    if tokens is None:
        return
    try:
        current_task_id.reset(tokens[1])
        current_request_id.reset(tokens[0])
    except ValueError:  # ended in another context than it began
        current_task_id.set(None)
        current_request_id.set(None)


signals.before_task_publish.connect(_send_request_id, dispatch_uid="config.logs.publish")
signals.task_prerun.connect(_enter_task, dispatch_uid="config.logs.prerun")
signals.task_postrun.connect(_leave_task, dispatch_uid="config.logs.postrun")

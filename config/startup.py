"""Start-up checks that turn a bad setting into one line naming it."""

from __future__ import annotations

import sys

from django.core.exceptions import ImproperlyConfigured

from config.env import mask_url, raw, redact


class StartupError(Exception):
    """A service named by a setting cannot be reached."""


def check_database() -> None:
    from pathlib import Path

    from django.db import connection
    from django.db.utils import Error as DatabaseError

    if connection.vendor == "sqlite":
        # The embedded default keeps its file under var/, made on first start.
        Path(connection.settings_dict["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    try:
        connection.ensure_connection()
    except DatabaseError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        reason = redact(reason, raw("DATABASE_URL"))
        raise StartupError(f"DATABASE_URL: cannot connect to the database ({reason})") from None


def check_redis() -> None:
    from django.conf import settings

    if not settings.REDIS_URL:
        return
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        where, reason = mask_url(settings.REDIS_URL), redact(str(exc), settings.REDIS_URL)
        raise StartupError(f"REDIS_URL: cannot reach Redis at {where} ({reason})") from None


def check_services() -> None:
    check_database()
    check_redis()


SECRET_URL_SETTINGS = ("DATABASE_URL", "REDIS_URL", "EMAIL_URL")


def fail(message: str) -> None:
    # Whatever raised the message, no password from a service URL reaches the log.
    for name in SECRET_URL_SETTINGS:
        message = redact(message, raw(name))
    sys.stderr.write(f"error: {message}\n")
    raise SystemExit(2)


def run_guarded(main) -> None:
    """Run ``main`` and turn configuration and service errors into one line."""
    try:
        main()
    except (ImproperlyConfigured, StartupError) as exc:
        fail(str(exc))

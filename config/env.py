"""Strict readers for settings taken from the environment.

django-environ parses URLs well but forgives too much (``DEBUG=maybe`` reads
as False, an unknown database scheme yields an empty engine). These helpers
use it for parsing and add the checks, so a malformed value stops start-up
with a message that names the variable.
"""

from __future__ import annotations

import os
import warnings
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

_env = environ.Env()

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}
DATABASE_ENGINES = {
    "django.db.backends.sqlite3",
    "django.db.backends.postgresql",
}
EMAIL_SCHEMES = {
    "consolemail",
    "smtp",
    "smtps",
    "smtp+tls",
    "smtp+ssl",
    "filemail",
    "memorymail",
    "dummymail",
}


class SettingError(ImproperlyConfigured):
    """A setting from the environment is missing or malformed."""

    def __init__(self, name: str, problem: str):
        self.name = name
        super().__init__(f"{name}: {problem}")


def raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def string(name: str, default: str | None = None) -> str | None:
    value = raw(name)
    return default if value is None else value


def boolean(name: str, default: bool) -> bool:
    value = raw(name)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise SettingError(name, f"expected true or false, got {value!r}")


def integer(name: str, default: int, *, minimum: int | None = None) -> int:
    value = raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise SettingError(name, f"expected a whole number, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise SettingError(name, f"must be at least {minimum}, got {number}")
    return number


def string_list(name: str, default: list[str]) -> list[str]:
    value = raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def origins(name: str) -> list[str]:
    items = string_list(name, [])
    for item in items:
        parts = urlsplit(item)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise SettingError(name, f"expected origins like https://example.org, got {item!r}")
    return items


def database(name: str, default: str) -> dict:
    url = raw(name) or default
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            config = _env.db_url_config(url)
        except Exception as exc:  # django-environ raises several kinds
            raise SettingError(name, f"cannot parse {url!r}: {exc}") from None
    engine = config.get("ENGINE")
    if engine not in DATABASE_ENGINES:
        raise SettingError(
            name, f"unsupported database URL {url!r} (use postgres://… or sqlite:///…)"
        )
    if not config.get("NAME"):
        raise SettingError(name, f"no database name in {url!r}")
    if engine == "django.db.backends.postgresql" and not config.get("HOST"):
        config["HOST"] = "127.0.0.1"
    return config


def redis_url(name: str) -> str | None:
    url = raw(name)
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in {"redis", "rediss"} or not parts.hostname:
        raise SettingError(name, f"expected redis://host:port/db, got {url!r}")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise SettingError(name, f"the port in {url!r} is not a number") from None
    db = parts.path.lstrip("/")
    if db and not db.isdigit():
        raise SettingError(name, f"the database in {url!r} must be a number")
    return url


def email(name: str, default: str) -> dict:
    url = raw(name) or default
    scheme = urlsplit(url).scheme
    if scheme not in EMAIL_SCHEMES:
        raise SettingError(
            name, f"unsupported email URL {url!r} (use consolemail://, smtp://… or smtp+tls://…)"
        )
    try:
        return _env.email_url_config(url)
    except Exception as exc:
        raise SettingError(name, f"cannot parse {url!r}: {exc}") from None


def choice(name: str, default: str, choices: set[str]) -> str:
    value = string(name, default)
    if value not in choices:
        raise SettingError(name, f"expected one of {', '.join(sorted(choices))}, got {value!r}")
    return value

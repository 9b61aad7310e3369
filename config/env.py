"""Strict readers for settings taken from the environment.

django-environ parses URLs well but forgives too much (``DEBUG=maybe`` reads
as False, an unknown database scheme yields an empty engine). These helpers
use it for parsing and add the checks, so a malformed value stops start-up
with a message that names the variable.
"""

from __future__ import annotations

import os
import re
import warnings
from urllib.parse import unquote, urlsplit

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


SECRET_QUERY_KEYS = re.compile(r"([?&](?:password|passwd|pass|secret|token)=)[^&#]*", re.I)


def _password(url: str) -> str | None:
    """The password in a URL's user part (``scheme://user:password@host``), as written."""
    _, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if not sep or at == -1 or ":" not in rest[:at]:
        return None
    return rest[:at].split(":", 1)[1] or None


def mask_url(url: str) -> str:
    """The URL with its password (and any password in the query) shown as ``***``.

    Parsed by hand rather than with urlsplit: a password holding ``/``, ``#`` or
    ``@`` unescaped must not survive because the parser read the URL otherwise.
    """
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if sep and at != -1 and ":" in rest[:at]:
        user = rest[:at].split(":", 1)[0]
        url = f"{scheme}://{user}:***@{rest[at + 1 :]}"
    return SECRET_QUERY_KEYS.sub(r"\1***", url)


def redact(text: str, url: str | None) -> str:
    """``text`` with ``url`` masked and its password removed wherever else it appears."""
    if not url:
        return text
    text = text.replace(url, mask_url(url))
    secret = _password(url)
    for form in {secret, unquote(secret)} if secret else ():
        if len(form) >= 3:  # a one-letter password would mask every such letter
            text = text.replace(form, "***")
    for match in SECRET_QUERY_KEYS.finditer(url):
        value = url[match.end(1) : match.end()]
        if len(value) >= 3:
            text = text.replace(value, "***")
    return text


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
            raise SettingError(
                name, redact(f"cannot parse {mask_url(url)!r}: {exc}", url)
            ) from None
    engine = config.get("ENGINE")
    if engine not in DATABASE_ENGINES:
        raise SettingError(
            name, f"unsupported database URL {mask_url(url)!r} (use postgres://… or sqlite:///…)"
        )
    if not config.get("NAME"):
        raise SettingError(name, f"no database name in {mask_url(url)!r}")
    if engine == "django.db.backends.postgresql" and not config.get("HOST"):
        config["HOST"] = "127.0.0.1"
    return config


def redis_url(name: str) -> str | None:
    url = raw(name)
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        parts.hostname  # noqa: B018 - raises on a malformed host
    except ValueError:
        raise SettingError(name, f"cannot parse {mask_url(url)!r}") from None
    if parts.scheme not in {"redis", "rediss"} or not parts.hostname:
        raise SettingError(name, f"expected redis://host:port/db, got {mask_url(url)!r}")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise SettingError(name, f"the port in {mask_url(url)!r} is not a number") from None
    db = parts.path.lstrip("/")
    if db and not db.isdigit():
        raise SettingError(name, f"the database in {mask_url(url)!r} must be a number")
    return url


def email(name: str, default: str) -> dict:
    url = raw(name) or default
    scheme = urlsplit(url).scheme
    if scheme not in EMAIL_SCHEMES:
        raise SettingError(
            name,
            f"unsupported email URL {mask_url(url)!r} (use consolemail://, smtp://… or smtp+tls://…)",
        )
    try:
        return _env.email_url_config(url)
    except Exception as exc:
        raise SettingError(name, redact(f"cannot parse {mask_url(url)!r}: {exc}", url)) from None


def choice(name: str, default: str, choices: set[str]) -> str:
    value = string(name, default)
    if value not in choices:
        raise SettingError(name, f"expected one of {', '.join(sorted(choices))}, got {value!r}")
    return value


def fraction(name: str, default: float) -> float:
    """A number from 0 to 1 (a sampling rate)."""
    value = raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not 0 <= number <= 1:  # also false for nan
        raise SettingError(name, f"expected a number from 0 to 1, got {value!r}")
    return number


def site_url(name: str, default: str | None, *, allowed_hosts: list[str] = ()) -> str:
    """The site's public address (``https://host[:port]``), without a trailing slash.

    When unset: ``default`` if given, else ``https://`` and the first of
    ``allowed_hosts`` that names one host (not ``*`` nor a ``.domain`` pattern).
    """
    url = raw(name)
    if url is None:
        url = default or next(
            (f"https://{host}" for host in allowed_hosts if host and host[0] not in "*."), None
        )
        if url is None:
            raise SettingError(name, "required when DEBUG is off and ALLOWED_HOSTS names no host")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise SettingError(name, f"cannot parse {url!r}") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise SettingError(
            name, f"expected an address like https://scholar.example.org, got {url!r}"
        )
    extras = parts.username or parts.password or parts.query or parts.fragment
    if extras or parts.path not in {"", "/"}:
        raise SettingError(
            name, f"expected only a scheme and a host (no path, query or user), got {url!r}"
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"

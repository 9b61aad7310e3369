"""Small filters for showing work records."""

from urllib.parse import urlsplit

from django import template

register = template.Library()


@register.filter
def web_url(value: str | None) -> str:
    """``value`` if it is an http(s) address, else "": imported links never get another scheme."""
    if not value:
        return ""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return value.strip()

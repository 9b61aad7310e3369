"""Small filters for showing work records."""

from django import template

from publications import display

register = template.Library()


@register.filter
def web_url(value: str | None) -> str:
    """``value`` if it is an http(s) address, else "": imported links never get another scheme."""
    return display.web_url(value)

"""Small filters for showing work records."""

from django import template

from catalogue import identifiers, links
from pages import cache as pagecache

register = template.Library()


@register.filter
def web_url(value: str | None) -> str:
    """``value`` if it is an http(s) address, else "": imported links never get another scheme."""
    return links.web_url(value)


@register.filter
def openalex_url(openalex_id: str | None) -> str:
    """The record's page at OpenAlex, or "" for a local id in the OpenAlex form (none there)."""
    return identifiers.openalex_url(openalex_id)


@register.simple_tag
def work_items(works, page_author=None, pinned=False):
    """The list entries of ``works``, each from the cache while its records are unchanged."""
    return pagecache.work_items_render(works, page_author=page_author, pinned=pinned)

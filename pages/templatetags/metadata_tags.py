"""Tags for the metadata in a page's <head>: canonical address, JSON-LD.

A work page's own (Highwire, OpenGraph, a ScholarlyArticle) is drawn with its summary
(``pages.summaries``)."""

from django import template

from config.sites import absolute_url
from pages import metadata

register = template.Library()


@register.simple_tag(takes_context=True)
def canonical_url(context) -> str:
    """The page's absolute address on the public site, without its query string."""
    request = context.get("request")
    return absolute_url(request.path) if request is not None else ""


@register.filter
def ld_json(data):
    """JSON for a <script type="application/ld+json"> element; no value can close it."""
    return metadata.ld_json(data)


@register.inclusion_tag("profiles/_person_metadata.html")
def person_metadata(author):
    """OpenGraph profile tags and a schema.org Person for a researcher page."""
    return {"author": author, "json_ld": metadata.person_json_ld(author)}

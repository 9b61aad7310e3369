"""Small filters for showing work records."""

from django import template

from catalogue import identifiers, links
from catalogue.dates import PartialDate
from pages import entries

register = template.Library()


@register.filter
def web_url(value: str | None) -> str:
    """``value`` if it is an http(s) address, else "": imported links never get another scheme."""
    return links.web_url(value)


@register.filter
def openalex_url(openalex_id: str | None) -> str:
    """The record's page at OpenAlex, or "" for a local id in the OpenAlex form (none there)."""
    return identifiers.openalex_url(openalex_id)


@register.filter
def version_date(work) -> PartialDate | None:
    """The stored date of the version a work's date comes from, to its precision.

    For a row whose date is of another year than its publication year (its
    ``published`` then states the year alone).
    """
    return PartialDate.of(work.publication_date, None, work.publication_date_precision)


@register.simple_tag
def work_items(works, page_author=None, pinned=False):
    """The list entries of ``works``, each as kept since its records last changed."""
    return entries.entries_html(works, page_author=page_author, pinned=pinned)

"""``/sitemap.xml``: an index of paged sitemaps of every public work, researcher,
institution, venue and topic page.

The index lists one sitemap per page of each section, so millions of works stay
within the protocol's 50,000 addresses per file; each page is one keyset-ordered
query that reads only the columns an address needs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as sitemap_views

from catalogue.models import Author, Institution, Topic, Venue, Work
from config.sites import absolute_url, site_url

PER_SITEMAP = 10_000


class PublicSitemap(Sitemap):
    limit = PER_SITEMAP

    def get_protocol(self, protocol=None):
        return urlsplit(site_url()).scheme

    def get_domain(self, site=None):
        return urlsplit(site_url()).netloc

    def lastmod(self, item):
        return item.updated_at


class WorkSitemap(PublicSitemap):
    def items(self):
        # Merged records redirect to the work they went into: only the survivors are listed.
        return Work.objects.visible().only("id", "title", "updated_at").order_by("id")


class ResearcherSitemap(PublicSitemap):
    def items(self):
        return Author.objects.visible().only("id", "display_name", "updated_at").order_by("id")


class _NamedSitemap(PublicSitemap):
    model = None

    def items(self):
        return self.model.objects.only("id", "name", "updated_at").order_by("id")


class InstitutionSitemap(_NamedSitemap):
    model = Institution


class VenueSitemap(_NamedSitemap):
    model = Venue


class TopicSitemap(_NamedSitemap):
    model = Topic


SITEMAPS = {
    "works": WorkSitemap,
    "researchers": ResearcherSitemap,
    "institutions": InstitutionSitemap,
    "venues": VenueSitemap,
    "topics": TopicSitemap,
}


def sitemap_index(request, **kwargs):
    """Django's sitemap index, each sitemap's address on the public site.

    Django's view takes the host from the sites framework's row, which ``migrate``
    writes and a DEBUG run on another port (``config.sites``) does not follow.
    """
    response = sitemap_views.index(request, **kwargs)
    for item in response.context_data["sitemaps"]:
        parts = urlsplit(item.location)
        item.location = absolute_url(parts.path + (f"?{parts.query}" if parts.query else ""))
    return response

"""``/sitemap.xml``: an index of paged sitemaps of every public work, researcher,
institution, venue and topic page.

The index lists one sitemap per page of each section, so millions of works stay
within the protocol's 50,000 addresses per file; each page is one keyset-ordered
query that reads only the columns an address needs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap

from publications.models import Author, Institution, Topic, Venue, Work

PER_SITEMAP = 10_000


class PublicSitemap(Sitemap):
    limit = PER_SITEMAP

    def get_protocol(self, protocol=None):
        return urlsplit(settings.SITE_URL).scheme

    def get_domain(self, site=None):
        return urlsplit(settings.SITE_URL).netloc

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

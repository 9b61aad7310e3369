"""Institutions, venues, topics and funders: what works and authors point at."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.text import slugify

from catalogue.models.common import TimeStamped, unique_where_present


class Institution(TimeStamped):
    name = models.CharField(max_length=500)
    openalex_id = models.CharField(max_length=32, blank=True, null=True)
    ror = models.CharField("ROR id", max_length=64, blank=True, null=True)
    country_code = models.CharField(max_length=2, blank=True)
    type = models.CharField(max_length=50, blank=True)
    homepage_url = models.URLField(max_length=500, blank=True)
    homepage_domain = models.CharField(max_length=255, blank=True, db_index=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            unique_where_present("openalex_id", "institution"),
            unique_where_present("ror", "institution"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("publications:institution", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.name)[:80] or "institution"


class Venue(TimeStamped):
    name = models.CharField(max_length=500)
    openalex_id = models.CharField(max_length=32, blank=True, null=True)
    issn_l = models.CharField("ISSN-L", max_length=16, blank=True)
    type = models.CharField(max_length=50, blank=True)
    publisher = models.CharField(max_length=500, blank=True)
    homepage_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [unique_where_present("openalex_id", "venue")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("publications:venue", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.name)[:80] or "venue"


class Topic(TimeStamped):
    class Kind(models.TextChoices):
        DOMAIN = "domain", "Domain"
        FIELD = "field", "Field"
        SUBFIELD = "subfield", "Subfield"
        TOPIC = "topic", "Topic"
        CONCEPT = "concept", "Concept (legacy)"
        ARXIV = "arxiv", "arXiv category"

    # "openalex:T11636", "openalex:subfields/1702", "arxiv:cs.LG", ...
    key = models.CharField(max_length=100, unique=True)
    name = models.CharField(max_length=300)
    kind = models.CharField(max_length=16, choices=Kind.choices, db_index=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("publications:topic", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.name)[:80] or "topic"


class Funder(TimeStamped):
    name = models.CharField(max_length=500)
    openalex_id = models.CharField(max_length=32, blank=True, null=True)
    ror = models.CharField("ROR id", max_length=64, blank=True, null=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            unique_where_present("openalex_id", "funder"),
            models.UniqueConstraint(
                fields=["name"],
                condition=Q(openalex_id__isnull=True),
                name="funder_name_unique_without_id",
            ),
        ]

    def __str__(self) -> str:
        return self.name

"""Author records, their affiliations and the aggregates their pages show."""

from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.text import slugify

from catalogue.fields import JSONField
from catalogue.models.common import Source, TimeStamped, unique_where_present
from catalogue.models.entities import Institution
from identity.names import block_key


class AuthorQuerySet(models.QuerySet):
    def visible(self):
        """Authors shown on public pages: not merged away, not deleted placeholders."""
        return self.filter(merged_into__isnull=True, is_deleted=False)


class Author(TimeStamped):
    """The public author record, built from sources and curated by staff and owners."""

    display_name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300, db_index=True)
    # Surname and first initial as the identity engine groups names ("maestro_a"):
    # the records a bare byline of that block is weighed against. Kept by save().
    name_block = models.CharField(
        max_length=120, db_index=True, blank=True, default="", db_default=""
    )
    alternative_names = JSONField(default=list, blank=True)
    openalex_id = models.CharField(max_length=32, blank=True, null=True)
    orcid = models.CharField("ORCID iD", max_length=19, blank=True, null=True)
    last_known_institution = models.ForeignKey(
        Institution, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    institutions = models.ManyToManyField(
        Institution, through="AuthorInstitution", related_name="authors", blank=True
    )
    is_deleted = models.BooleanField(
        default=False, help_text="The source marks this record as a deleted placeholder."
    )
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="merged_from",
        help_text="Set when staff merged this record into another one.",
    )
    search_vector = SearchVectorField(null=True, editable=False)
    # The source's own counts for the whole record, as its author record gives them
    # (docs/METRICS.md): shown, labelled with the source and date, beside the figures
    # computed from the works held here. Null: the source gave no usable value.
    counts_source = models.CharField(
        max_length=16, choices=Source.choices, blank=True, default="", db_default=""
    )
    counts_as_of = models.DateTimeField(
        null=True, blank=True, help_text="When the source last updated the record it counted in."
    )
    source_works_count = models.PositiveIntegerField(null=True, blank=True)
    source_cited_by_count = models.PositiveIntegerField(null=True, blank=True)
    source_h_index = models.PositiveIntegerField(null=True, blank=True)
    source_i10_index = models.PositiveIntegerField(null=True, blank=True)
    source_mean_citedness = models.FloatField(
        null=True, blank=True, help_text="Mean citations of the works of the two years before."
    )
    source_topics_count = models.PositiveIntegerField(null=True, blank=True)
    # [{"year", "works", "citations"}], oldest first, as the source counts them.
    # Nullable: rows written by code older than the column (a data migration) leave it empty.
    source_counts_by_year = JSONField(default=list, blank=True, null=True)

    objects = AuthorQuerySet.as_manager()

    class Meta:
        ordering = ["display_name"]
        constraints = [
            unique_where_present("openalex_id", "author"),
            unique_where_present("orcid", "author"),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="author_not_merged_into_itself"
            ),
            models.CheckConstraint(
                condition=Q(source_mean_citedness__isnull=True) | Q(source_mean_citedness__gte=0),
                name="author_source_mean_citedness_not_negative",
            ),
        ]
        indexes = [models.Index(fields=["-created_at"], name="author_recent_idx")]

    def save(self, *args, **kwargs):
        self.name_block = block_key(self.display_name)[:120]
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "name_block"}
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return self.display_name

    def get_absolute_url(self) -> str:
        return reverse("profiles:researcher", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.display_name)[:80] or "author"


class AuthorInstitution(models.Model):
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="affiliations")
    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="+")
    years = JSONField(default=list, blank=True)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.OPENALEX)
    # The source's author record lists this affiliation (its affiliations or last known
    # institutions); otherwise it was derived from the bylines of works held here.
    in_author_record = models.BooleanField(default=False, db_default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["author", "institution"], name="author_institution_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.author_id} at {self.institution_id}"


class AuthorMetrics(models.Model):
    """Per-author aggregates, recomputed by a task after imports touch the author."""

    author = models.OneToOneField(Author, on_delete=models.CASCADE, related_name="metrics")
    works_count = models.PositiveIntegerField(default=0)
    citations = models.PositiveIntegerField(null=True, blank=True)
    h_index = models.PositiveIntegerField(default=0)
    i10_index = models.PositiveIntegerField(default=0)
    citations_by_year = JSONField(default=dict, blank=True)
    # Citations of the author's works by works we hold (publications.Citation).
    site_citations = models.PositiveIntegerField(default=0)
    topics_count = models.PositiveIntegerField(default=0)
    close_collaborators_count = models.PositiveIntegerField(default=0)
    followers_count = models.PositiveIntegerField(default=0)
    primary_category = models.CharField(max_length=300, blank=True)
    ai_score = models.FloatField(null=True, blank=True)
    novelty = models.FloatField(null=True, blank=True)
    # What ``novelty`` was counted from (catalogue.novelty.NoveltyBasis), kept with it so
    # a page shows the figure and its basis without counting again.
    novelty_basis = JSONField(null=True, blank=True)
    first_year = models.PositiveIntegerField(null=True, blank=True)
    last_year = models.PositiveIntegerField(null=True, blank=True)
    # Short ranked lists the researcher page shows without reading the author's works:
    # [{"id", "name", "slug", "joint_works", "last_year"}], close collaborators first;
    collaborators_top = JSONField(default=list, blank=True)
    # [{"id", "name", "key", "works"}], the topics most of the author's works are in;
    topics_top = JSONField(default=list, blank=True)
    # [{"id", "name", "ror", "first", "last", "current", "record", "byline_works",
    # "byline_first", "byline_last", "source"}]: the whole affiliation history, the
    # current institution first, then the latest; where each entry comes from.
    institutions_list = JSONField(default=list, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    # The oldest and newest date the sources gave the works counted here (their
    # updated dates, else when they were fetched): how current the figures are.
    works_dated_from = models.DateTimeField(null=True, blank=True)
    works_dated_to = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "author metrics"
        constraints = [
            models.CheckConstraint(
                condition=Q(ai_score__isnull=True) | Q(ai_score__gte=0, ai_score__lte=100),
                name="metrics_ai_score_range",
            ),
            models.CheckConstraint(
                condition=Q(novelty__isnull=True) | Q(novelty__gte=0, novelty__lte=100),
                name="metrics_novelty_range",
            ),
        ]

    def __str__(self) -> str:
        return f"Metrics of {self.author}"

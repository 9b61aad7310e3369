"""Works and what hangs off them: bylines, topics, grants, citations, similar works."""

from __future__ import annotations

from datetime import date

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from catalogue import dates
from catalogue import text as bounds
from catalogue.fields import JSONField
from catalogue.models.authors import Author
from catalogue.models.common import Source, TimeStamped, bounded_text, unique_where_present
from catalogue.models.entities import Funder, Institution, Topic, Venue


class WorkQuerySet(models.QuerySet):
    def visible(self):
        return self.filter(merged_into__isnull=True)


class Work(TimeStamped):
    class Type(models.TextChoices):
        """OpenAlex's vocabulary of work types, every word of it (arXiv's are preprints).

        How each is exported, the nearest type each format has, is in
        ``catalogue.entry_types``.
        """

        ARTICLE = "article", "Article"
        PREPRINT = "preprint", "Preprint"
        BOOK = "book", "Book"
        BOOK_CHAPTER = "book-chapter", "Book chapter"
        DATASET = "dataset", "Dataset"
        DISSERTATION = "dissertation", "Dissertation"
        REVIEW = "review", "Review"
        BOOK_REVIEW = "book-review", "Book review"
        EDITORIAL = "editorial", "Editorial"
        ERRATUM = "erratum", "Erratum"
        GRANT = "grant", "Grant"
        LETTER = "letter", "Letter"
        LIBGUIDES = "libguides", "Library guide"
        PARATEXT = "paratext", "Paratext"
        PEER_REVIEW = "peer-review", "Peer review"
        REFERENCE_ENTRY = "reference-entry", "Reference entry"
        REPORT = "report", "Report"
        RETRACTION = "retraction", "Retraction"
        STANDARD = "standard", "Standard"
        SUPPLEMENTARY_MATERIALS = "supplementary-materials", "Supplementary materials"
        OTHER = "other", "Other"

    class DatePrecision(models.TextChoices):
        YEAR = dates.YEAR, "Year"
        MONTH = dates.MONTH, "Month"
        DAY = dates.DAY, "Day"

    # Bounded at import (catalogue.text) and by a CHECK constraint (migration 0012).
    title = models.TextField(blank=True, max_length=bounds.TITLE_MAX)
    # Looked up through work_title_year_idx (its first column): no index of its own.
    normalized_title = models.CharField(max_length=500, blank=True)
    abstract = models.TextField(blank=True, max_length=bounds.ABSTRACT_MAX)
    type = models.CharField(max_length=32, choices=Type.choices, default=Type.ARTICLE)
    language = models.CharField(max_length=16, blank=True)
    # The first day of what the source knows, with how much it knows (docs/DATES.md):
    # read it through ``published``, never as a whole date.
    publication_date = models.DateField(null=True, blank=True)
    publication_date_precision = models.CharField(
        max_length=5,
        choices=DatePrecision.choices,
        default=DatePrecision.DAY,
        db_default=DatePrecision.DAY,
        help_text="How much of the publication date the source gives: its year, month or day.",
    )
    publication_year = models.PositiveIntegerField(null=True, blank=True, db_index=True)
    source_created_date = models.DateField(null=True, blank=True)
    source_updated_at = models.DateTimeField(null=True, blank=True)
    venue = models.ForeignKey(
        Venue, null=True, blank=True, on_delete=models.SET_NULL, related_name="works"
    )
    journal_ref = models.CharField(max_length=500, blank=True)
    doi = models.CharField("DOI", max_length=255, blank=True, null=True)
    arxiv_id = models.CharField("arXiv id", max_length=64, blank=True, null=True)
    openalex_id = models.CharField("OpenAlex id", max_length=32, blank=True, null=True)
    pmid = models.CharField("PubMed id", max_length=32, blank=True, null=True)
    arxiv_primary_category = models.CharField(max_length=32, blank=True, db_index=True)
    comments = models.TextField(blank=True, max_length=bounds.COMMENTS_MAX)
    code_url = models.URLField(max_length=500, blank=True)
    pdf_url = models.URLField(max_length=500, blank=True)
    landing_url = models.URLField(max_length=500, blank=True)
    license = models.CharField(max_length=100, blank=True)
    is_open_access = models.BooleanField(null=True, blank=True)
    # OpenAlex open_access.oa_status ("gold", "green", ...) and its best open copy. The
    # database defaults let rows written without these columns (older code) still insert.
    oa_status = models.CharField(
        "OA status", max_length=16, blank=True, default="", db_default="", db_index=True
    )
    oa_url = models.URLField(
        "best open copy", max_length=500, blank=True, default="", db_default=""
    )
    # OpenAlex biblio: where the work sits in its journal.
    volume = models.CharField(max_length=50, blank=True, default="", db_default="")
    issue = models.CharField(max_length=50, blank=True, default="", db_default="")
    first_page = models.CharField(max_length=50, blank=True, default="", db_default="")
    last_page = models.CharField(max_length=50, blank=True, default="", db_default="")
    is_retracted = models.BooleanField(default=False)
    embargo_until = models.DateField(null=True, blank=True)
    # Unknown stays unknown: None means no source told us the count.
    cited_by_count = models.PositiveIntegerField(null=True, blank=True)
    counts_by_year = JSONField(default=list, blank=True)
    # Highest TF-IDF cosine to any earlier work in the corpus (Novelty, docs/METRICS.md);
    # None until computed, or when the work has no date or no text to compare.
    prior_similarity = models.FloatField(null=True, blank=True, editable=False)
    first_author_surname = models.CharField(max_length=200, blank=True)
    # A database default too: code written before the column (a data migration's
    # historical models) still inserts works.
    authors_truncated = models.BooleanField(
        default=False,
        db_default=False,
        help_text="The source lists only some of the authors: bylines end in et al.",
    )
    # Which source each field's value came from: {"title": "openalex", "comments": "arxiv"}.
    provenance = JSONField(default=dict, blank=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_from"
    )
    authors = models.ManyToManyField(Author, through="Authorship", related_name="works")
    topics = models.ManyToManyField(Topic, through="WorkTopic", related_name="works")

    objects = WorkQuerySet.as_manager()

    class Meta:
        ordering = ["-publication_date", "-id"]
        constraints = [
            unique_where_present("doi", "work"),
            unique_where_present("arxiv_id", "work"),
            unique_where_present("openalex_id", "work"),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="work_not_merged_into_itself"
            ),
            *bounded_text("work", title=bounds.TITLE_MAX, abstract=bounds.ABSTRACT_MAX),
            *bounded_text("work", comments=bounds.COMMENTS_MAX),
        ]
        indexes = [
            models.Index(
                fields=["normalized_title", "publication_year"], name="work_title_year_idx"
            ),
            models.Index(fields=["-created_at"], name="work_recent_idx"),
            models.Index(fields=["-cited_by_count"], name="work_cited_idx"),
        ]

    def __str__(self) -> str:
        return self.title or f"Untitled work {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("publications:work", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.title)[:80] or "work"

    def byline(self) -> list[Authorship | UnlinkedAuthorship]:
        """The authorships and the names no record holds, in byline order.

        An unlinked name (its ``author`` is None) stands only at a position no
        authorship takes. Reads ``authorships`` and ``unlinked_authorships`` as
        loaded (``selectors.works_with_authors`` prefetches both).
        """
        entries: list[Authorship | UnlinkedAuthorship] = list(self.authorships.all())
        taken = {entry.position for entry in entries}
        for unlinked in self.unlinked_authorships.all():
            if unlinked.position not in taken:
                taken.add(unlinked.position)
                entries.append(unlinked)
        return sorted(entries, key=lambda entry: entry.position)

    @property
    def published(self) -> dates.PartialDate | None:
        """The publication date as precisely as its source gives it (a year, a month or a day)."""
        return dates.PartialDate.of(
            self.publication_date, self.publication_year, self.publication_date_precision
        )

    @property
    def arxiv_created(self) -> date | None:
        """The day arXiv's first version was submitted, when the work holds arXiv's dates."""
        if self.provenance.get("source_created_date") == Source.ARXIV:
            return self.source_created_date
        # Rows written before arXiv's created date was kept: their date is v1's, unless a
        # journal reference dated the version of record.
        provenance = self.provenance
        if provenance.get("publication_date") == Source.ARXIV:
            return None if provenance.get("date_version") == "record" else self.publication_date
        return None

    @property
    def byline_length(self) -> int:
        """How many names the byline has: ``byline_total`` when a list read it
        (``selectors.works_with_authors`` reads only the first names), else those loaded."""
        total = getattr(self, "byline_total", None)
        return total if total is not None else len(self.byline())


class WorkSearch(models.Model):
    """What search reads of a work, in a narrow row (PostgreSQL only, see migration 0008).

    Triggers on the work table keep it current; counting, ranking and faceting
    thousands of matches then reads these rows instead of the wide work rows.
    """

    work = models.OneToOneField(
        Work,
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="search_row",
    )
    search_vector = SearchVectorField()
    type = models.CharField(max_length=32)
    publication_year = models.IntegerField(null=True)
    cited_by_count = models.IntegerField(null=True)
    visible = models.BooleanField()

    class Meta:
        managed = False
        db_table = "publications_worksearch"

    def __str__(self) -> str:
        return f"Search row of work {self.work_id}"


class AuthorshipQuerySet(models.QuerySet):
    def of_visible_works(self):
        """Authorships of works shown on public pages: not merged into another work."""
        return self.filter(work__merged_into__isnull=True)

    def of_visible_authors(self):
        """Authorships whose author is shown on public pages (see AuthorQuerySet.visible)."""
        return self.filter(author__merged_into__isnull=True, author__is_deleted=False)


class Authorship(models.Model):
    # Both keys are the first column of a two-column index below, which serves every
    # lookup a single-column index would: an import writes ~4 authorships per work, so
    # each index fewer is felt.
    work = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    author = models.ForeignKey(
        Author, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    position = models.PositiveIntegerField(help_text="0 for the first author.")
    raw_name = models.CharField(max_length=500, blank=True)
    raw_affiliation = models.TextField(blank=True, max_length=bounds.AFFILIATION_MAX)
    institutions = models.ManyToManyField(Institution, blank=True, related_name="authorships")
    is_corresponding = models.BooleanField(default=False)
    source = models.CharField(max_length=16, choices=Source.choices)
    confidence = models.FloatField(default=1.0)
    # Why the record holds this byline, in words: "OpenAlex author id", "ORCID",
    # "name: same full name, 3 shared co-authors, EPFL". Blank for links older than it.
    evidence = models.CharField(max_length=300, blank=True, default="", db_default="")

    objects = AuthorshipQuerySet.as_manager()

    class Meta:
        ordering = ["work", "position"]
        constraints = [
            models.UniqueConstraint(fields=["work", "author"], name="authorship_once_per_work"),
            *bounded_text("authorship", raw_affiliation=bounds.AFFILIATION_MAX),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1),
                name="authorship_confidence_range",
            ),
        ]
        indexes = [models.Index(fields=["author", "work"], name="authorship_author_idx")]

    def __str__(self) -> str:
        return f"{self.raw_name or self.author} on {self.work_id}"


class UnlinkedAuthorship(models.Model):
    """A byline position that no author record holds: the name as the source printed it.

    An import leaves a position here when a cannot-link keeps the author the source
    names off the work and no other record of that name has evidence for it, so the
    byline stays whole without spawning a record for a person nobody has identified.
    """

    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="unlinked_authorships")
    position = models.PositiveIntegerField(help_text="0 for the first author.")
    raw_name = models.CharField(max_length=500)
    source = models.CharField(max_length=16, choices=Source.choices)

    # No record holds the position: read alongside Authorship in Work.byline().
    author = None
    author_id = None

    class Meta:
        ordering = ["work", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["work", "source", "position"], name="unlinked_authorship_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.raw_name} (unlinked) on {self.work_id}"


class WorkTopic(models.Model):
    # Indexed as the first columns of work_topic_once and worktopic_topic_idx.
    work = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="work_topics", db_index=False
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="work_topics", db_index=False
    )
    score = models.FloatField(default=1.0)
    is_primary = models.BooleanField(default=False)
    source = models.CharField(max_length=16, choices=Source.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["work", "topic"], name="work_topic_once")]
        indexes = [models.Index(fields=["topic", "work"], name="worktopic_topic_idx")]

    def __str__(self) -> str:
        return f"{self.work_id} in {self.topic_id} ({self.score:.2f})"


class Grant(models.Model):
    # Indexed as the first column of grant_once.
    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="grants", db_index=False)
    funder = models.ForeignKey(Funder, on_delete=models.CASCADE, related_name="grants")
    award_id = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["work", "funder", "award_id"], name="grant_once")
        ]

    def __str__(self) -> str:
        return f"{self.funder} {self.award_id}".strip()


class Citation(models.Model):
    """One work's reference to another, kept by the cited work's OpenAlex id.

    ``cited`` is set once we hold that work (in either order of import) and stays
    empty while we do not. ``citing_openalex_id`` names the OpenAlex record that
    lists the reference, so re-importing that record replaces exactly its links.
    """

    citing = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="references", db_index=False
    )
    citing_openalex_id = models.CharField(max_length=32)
    cited_openalex_id = models.CharField(max_length=32, db_index=True)
    cited = models.ForeignKey(
        Work,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="citations_received",
        db_index=False,
    )
    # When both ends were first held here: what follower alerts call a new citation.
    linked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["citing_openalex_id", "cited_openalex_id"], name="citation_once"
            )
        ]
        indexes = [
            models.Index(fields=["citing", "cited"], name="citation_citing_idx"),
            models.Index(fields=["cited", "citing"], name="citation_cited_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.citing_id} cites {self.cited_openalex_id}"


class WorkSimilarity(models.Model):
    """A precomputed "More like this" entry with the reasons for the match."""

    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="similar_links")
    similar = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()
    reasons = JSONField(default=list)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["work", "-score"]
        verbose_name_plural = "work similarities"
        constraints = [
            models.UniqueConstraint(fields=["work", "similar"], name="similarity_once"),
            models.CheckConstraint(
                condition=~Q(work=models.F("similar")), name="similarity_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.work_id} ~ {self.similar_id} ({self.score:.2f})"


class SimilarityRequest(models.Model):
    """Works and authors whose matches the next similarity run is to bring up to date.

    An import batch or a curation asks with one row; a run takes every row asked
    so far and removes them once it has written their matches, so the batches of
    a large import share runs instead of each reading the whole corpus.
    """

    work_ids = JSONField(default=list)
    author_ids = JSONField(default=list)
    asked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{len(self.work_ids)} works, {len(self.author_ids)} authors at {self.asked_at}"

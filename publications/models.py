"""The scholarly record: works, authors and where every fact came from."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual
from django.urls import reverse
from django.utils.text import slugify

from publications import text as bounds
from publications.fields import JSONField, json_bytes


def unique_where_present(field: str, model: str) -> models.UniqueConstraint:
    """An external id is unique among the rows that have one."""
    return models.UniqueConstraint(
        fields=[field],
        condition=Q(**{f"{field}__isnull": False}) & ~Q(**{field: ""}),
        name=f"{model}_{field}_unique_when_set",
    )


def bounded_text(model: str, **limits: int) -> list[models.CheckConstraint]:
    """One CHECK per text column: at most its number of characters (see publications.text)."""
    return [
        models.CheckConstraint(
            condition=LessThanOrEqual(Length(field), limit), name=f"{model}_{field}_bounded"
        )
        for field, limit in limits.items()
    ]


class Source(models.TextChoices):
    OPENALEX = "openalex", "OpenAlex"
    ARXIV = "arxiv", "arXiv"
    CLAIM = "claim", "Claim by the researcher"
    STAFF = "staff", "Staff"


class TimeStamped(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


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
        return reverse("institutions:detail", kwargs={"pk": self.pk, "slug": self.slug})

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
        return reverse("venues:detail", kwargs={"pk": self.pk, "slug": self.slug})

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
        return reverse("topics:detail", kwargs={"pk": self.pk, "slug": self.slug})

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


class AuthorQuerySet(models.QuerySet):
    def visible(self):
        """Authors shown on public pages: not merged away, not deleted placeholders."""
        return self.filter(merged_into__isnull=True, is_deleted=False)


class Author(TimeStamped):
    """The public author record, built from sources and curated by staff and owners."""

    display_name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300, db_index=True)
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

    objects = AuthorQuerySet.as_manager()

    class Meta:
        ordering = ["display_name"]
        constraints = [
            unique_where_present("openalex_id", "author"),
            unique_where_present("orcid", "author"),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="author_not_merged_into_itself"
            ),
        ]
        indexes = [models.Index(fields=["-created_at"], name="author_recent_idx")]

    def __str__(self) -> str:
        return self.display_name

    def get_absolute_url(self) -> str:
        return reverse("researchers:detail", kwargs={"pk": self.pk, "slug": self.slug})

    @property
    def slug(self) -> str:
        return slugify(self.display_name)[:80] or "author"


class AuthorInstitution(models.Model):
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="affiliations")
    institution = models.ForeignKey(Institution, on_delete=models.CASCADE, related_name="+")
    years = JSONField(default=list, blank=True)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.OPENALEX)

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
    first_year = models.PositiveIntegerField(null=True, blank=True)
    last_year = models.PositiveIntegerField(null=True, blank=True)
    # Short ranked lists the researcher page shows without reading the author's works:
    # [{"id", "name", "slug", "joint_works", "last_year"}], close collaborators first;
    collaborators_top = JSONField(default=list, blank=True)
    # [{"id", "name", "key", "works"}], the topics most of the author's works are in;
    topics_top = JSONField(default=list, blank=True)
    # [{"id", "name", "ror"}], the current institution first, then past ones.
    institutions_list = JSONField(default=list, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

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


class WorkQuerySet(models.QuerySet):
    def visible(self):
        return self.filter(merged_into__isnull=True)


class Work(TimeStamped):
    class Type(models.TextChoices):
        ARTICLE = "article", "Article"
        PREPRINT = "preprint", "Preprint"
        BOOK = "book", "Book"
        BOOK_CHAPTER = "book-chapter", "Book chapter"
        DATASET = "dataset", "Dataset"
        DISSERTATION = "dissertation", "Dissertation"
        REVIEW = "review", "Review"
        OTHER = "other", "Other"

    # Bounded at import (publications.text) and by a CHECK constraint (migration 0012).
    title = models.TextField(blank=True, max_length=bounds.TITLE_MAX)
    # Looked up through work_title_year_idx (its first column): no index of its own.
    normalized_title = models.CharField(max_length=500, blank=True)
    abstract = models.TextField(blank=True, max_length=bounds.ABSTRACT_MAX)
    type = models.CharField(max_length=32, choices=Type.choices, default=Type.ARTICLE)
    language = models.CharField(max_length=16, blank=True)
    publication_date = models.DateField(null=True, blank=True)
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
    # Highest TF-IDF cosine to any earlier work in the corpus (DESIGN: Novelty);
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
        return reverse("works:detail", kwargs={"pk": self.pk, "slug": self.slug})

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


class PayloadField(JSONField):
    """JSON stored as the text it was written as: PostgreSQL ``json``, not ``jsonb``.

    A payload is written once per import and read back whole, never searched
    inside, so it skips ``jsonb``'s conversion to binary form, which made it the
    costliest column of an import to write. Other databases store text anyway.
    """

    def db_type(self, connection):
        return "json" if connection.vendor == "postgresql" else super().db_type(connection)

    def from_db_value(self, value, expression, connection):
        if value is not None and not isinstance(value, str):
            return value  # psycopg has already decoded a json column
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value, connection, prepared=False):
        """Sent as ``json``, not ``jsonb``: a ``\\u0000`` in a string stays an escape."""
        if connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        from psycopg.types.json import Json

        if not prepared:
            value = self.get_prep_value(value)
        return Json(value, dumps=_payload_text)


def _payload_text(value) -> str:
    return json_bytes(value, sort_keys=False).decode()


class SourceRecord(models.Model):
    """The raw payload of one entity as a source gave it, with its content hash."""

    class Entity(models.TextChoices):
        WORK = "work", "Work"
        AUTHOR = "author", "Author"
        INSTITUTION = "institution", "Institution"

    source = models.CharField(max_length=16, choices=Source.choices)
    entity = models.CharField(max_length=16, choices=Entity.choices, default=Entity.WORK)
    external_id = models.CharField(max_length=255)
    payload = PayloadField()
    content_hash = models.CharField(max_length=64)
    fetched_at = models.DateTimeField()
    first_seen_at = models.DateTimeField(auto_now_add=True)
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.SET_NULL, related_name="source_records"
    )
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.SET_NULL, related_name="source_records"
    )
    import_run = models.ForeignKey(
        "ImportRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="records"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "entity", "external_id"], name="source_record_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.external_id}"


class ImportRun(models.Model):
    class Kind(models.TextChoices):
        AUTHOR = "author", "Author id"
        ORCID = "orcid", "ORCID iD"
        DOIS = "dois", "DOI list"
        FILTER = "filter", "Works filter"
        QUERY = "query", "Author query"
        IDS = "ids", "Id list"
        CATEGORY = "category", "Category and dates"
        FILE = "file", "Recorded file"
        REFRESH = "refresh", "Refresh"

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting to be sent"  # the broker was down when it was asked for
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    source = models.CharField(max_length=16, choices=Source.choices)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    parameters = JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    cursor = JSONField(null=True, blank=True, help_text="Where a resumed run picks up.")
    processed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(null=True, blank=True)
    counters = JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    task_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="When a worker last wrote to this run."
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_source_display()} {self.get_kind_display()} #{self.pk}"


class ImportProblem(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RETRIED = "retried", "Retried"
        IGNORED = "ignored", "Ignored"

    run = models.ForeignKey(
        ImportRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="problems"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    external_id = models.CharField(max_length=255, blank=True)
    payload = JSONField(null=True, blank=True)
    raw_payload = models.TextField(blank=True, help_text="The body when it was not JSON.")
    error = models.TextField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    # Which bad record this is (publications.quarantine.fingerprint): meeting it again,
    # in this run or a later one, counts on its open problem instead of adding a row.
    fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    seen_count = models.PositiveIntegerField(
        "times seen", default=1, help_text="How many times imports met this bad record."
    )
    last_run = models.ForeignKey(
        ImportRun,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run that last met this bad record.",
    )
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["fingerprint"],
                condition=Q(status="open") & ~Q(fingerprint=""),
                name="import_problem_open_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.external_id or '?'}: {self.error[:60]}"

    @property
    def kept_payload(self):
        """The record this problem keeps: ``payload``, or the JSON kept as text instead."""
        from publications.quarantine import kept_payload

        return kept_payload(self.payload, self.raw_payload)


class MergeCandidate(models.Model):
    """Two works or two authors that may be one; staff decide."""

    class Kind(models.TextChoices):
        WORK = "work", "Works"
        AUTHOR = "author", "Authors"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        MERGED = "merged", "Merged"
        KEPT_APART = "kept_apart", "Kept apart"
        # A merge made the pair one record, or turned it into a pair already raised.
        SUPERSEDED = "superseded", "Superseded by a merge"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    work_a = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    work_b = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    author_a = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    author_b = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.CharField(max_length=300)
    score = models.FloatField(default=0.0)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        kind="work",
                        work_a__isnull=False,
                        work_b__isnull=False,
                        author_a__isnull=True,
                        author_b__isnull=True,
                    )
                    | Q(
                        kind="author",
                        author_a__isnull=False,
                        author_b__isnull=False,
                        work_a__isnull=True,
                        work_b__isnull=True,
                    )
                ),
                name="merge_candidate_one_pair",
            ),
            models.UniqueConstraint(fields=["work_a", "work_b"], name="merge_candidate_work_pair"),
            models.UniqueConstraint(
                fields=["author_a", "author_b"], name="merge_candidate_author_pair"
            ),
        ]

    def __str__(self) -> str:
        left, right = (
            (self.work_a, self.work_b) if self.kind == "work" else (self.author_a, self.author_b)
        )
        return f"{left} ~ {right}"


class LinkConstraint(models.Model):
    """A staff or owner decision that later imports obey."""

    class Kind(models.TextChoices):
        MUST_LINK = "must_link", "Must link"
        CANNOT_LINK = "cannot_link", "Cannot link"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    # Either author + work ("this work is / is not theirs") or author + other_author
    # ("these records are / are not one person") or work + other_work.
    author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="link_constraints"
    )
    work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="link_constraints"
    )
    other_author = models.ForeignKey(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    other_work = models.ForeignKey(
        Work, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    reason = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        author__isnull=False,
                        work__isnull=False,
                        other_author__isnull=True,
                        other_work__isnull=True,
                    )
                    | Q(
                        author__isnull=False,
                        other_author__isnull=False,
                        work__isnull=True,
                        other_work__isnull=True,
                    )
                    | Q(
                        work__isnull=False,
                        other_work__isnull=False,
                        author__isnull=True,
                        other_author__isnull=True,
                    )
                ),
                name="link_constraint_one_pair",
            ),
            models.UniqueConstraint(
                fields=["author", "work"],
                condition=Q(other_author__isnull=True, other_work__isnull=True),
                name="link_constraint_author_work_once",
            ),
            models.UniqueConstraint(
                fields=["author", "other_author"],
                condition=Q(work__isnull=True),
                name="link_constraint_author_pair_once",
            ),
            models.UniqueConstraint(
                fields=["work", "other_work"],
                condition=Q(author__isnull=True),
                name="link_constraint_work_pair_once",
            ),
        ]

    def __str__(self) -> str:
        left = self.author or self.work
        right = self.other_author or self.other_work or self.work
        return f"{self.get_kind_display()}: {left} / {right}"


class AuditEvent(models.Model):
    """Who did what, when, to which record: every staff and owner decision."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=64, db_index=True)
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    target_repr = models.CharField(max_length=300, blank=True)
    data = JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target_idx")]

    def __str__(self) -> str:
        return f"{self.action} {self.target_type}:{self.target_id}"

"""Where every fact came from: raw source records, import runs and their problems."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from catalogue.fields import JSONField, json_bytes
from catalogue.models.authors import Author
from catalogue.models.common import Source
from catalogue.models.works import Work


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
    # The digest of the exact line of a recorded file the payload was read from ("" when
    # it came another way): a re-import finds an unchanged line without parsing it.
    line_digest = models.CharField(max_length=40, blank=True, default="", db_default="")
    # When the source last changed the record, as the record says (OpenAlex's
    # updated_date, arXiv's updated): an import never replaces it with an older one.
    source_updated_at = models.DateTimeField(null=True, blank=True)
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

    # A run not over yet: it may still be sent or run, and it can be cancelled.
    ACTIVE_STATUSES = frozenset({Status.WAITING, Status.QUEUED, Status.RUNNING})
    # A run that stopped short: retrying resumes it from its saved cursor.
    RETRYABLE_STATUSES = frozenset({Status.FAILED, Status.CANCELLED})

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
    # Which bad record this is (ingestion.importing.quarantine.fingerprint): meeting it again,
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

"""What the source says of a work cited here but not held: enough to name it in a list."""

from __future__ import annotations

from django.db import models

from catalogue import text as bounds
from catalogue.models.common import bounded_text


class ReferencePreview(models.Model):
    """The title, year and first author of an OpenAlex work that a held work cites.

    Kept by the cited work's OpenAlex id, once for every work citing it. Every value
    is cleaned as imported text is (``catalogue.text``); a work OpenAlex did not
    return keeps a row with empty values, so it is not asked for again until the row
    is old (``fetched_at``).
    """

    openalex_id = models.CharField(max_length=32, unique=True)
    title = models.TextField(blank=True, max_length=bounds.TITLE_MAX)
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    first_author = models.CharField(max_length=bounds.NAME_MAX, blank=True)
    fetched_at = models.DateTimeField()

    class Meta:
        constraints = [*bounded_text("referencepreview", title=bounds.TITLE_MAX)]

    def __str__(self) -> str:
        return f"{self.openalex_id}: {self.title or 'not found'}"

    @property
    def found(self) -> bool:
        """Whether the source named the work (a title or an author to show)."""
        return bool(self.title or self.first_author)

"""Co-authorship edges, kept current after each import batch."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from catalogue.models import Author


class CoauthorEdge(models.Model):
    """Two authors who wrote together; stored once per pair, lower id first."""

    author_low = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="+")
    author_high = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="+")
    joint_works = models.PositiveIntegerField()
    first_year = models.PositiveIntegerField(null=True, blank=True)
    last_year = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["author_low", "author_high"], name="coauthor_edge_once"
            ),
            models.CheckConstraint(
                condition=Q(author_low__lt=F("author_high")), name="coauthor_edge_ordered"
            ),
            models.CheckConstraint(condition=Q(joint_works__gte=1), name="coauthor_edge_has_works"),
        ]
        # The unique pair index serves lookups by the lower id; this one by the higher.
        # Neither holds a counted column, so adding a joint work to an edge is a HOT
        # update (the table keeps free room on each page: fillfactor, migration 0002)
        # and writes no index at all.
        indexes = [models.Index(fields=["author_high"], name="edge_high_idx")]

    def __str__(self) -> str:
        return f"{self.author_low_id} - {self.author_high_id} ({self.joint_works})"


class CountedAuthorship(models.Model):
    """What the edges were last counted from: each visible author of each visible work.

    The incremental update compares a work's rows here with its current authorships
    and adds or recounts only the pairs that differ, then stores the new rows. Plain
    ids, not foreign keys: a row outlives a deleted work until the next update
    subtracts it.
    """

    pk = models.CompositePrimaryKey("work_id", "author_id")
    work_id = models.BigIntegerField()
    author_id = models.BigIntegerField()
    year = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["author_id", "work_id"], name="counted_author_idx")]

    def __str__(self) -> str:
        return f"work {self.work_id}: author {self.author_id}"

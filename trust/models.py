"""Trust scores and their history; how they are computed lives in scoring.py."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from catalogue.models import Author


class Tier(models.TextChoices):
    EMERGING = "emerging", "Emerging"
    ESTABLISHED = "established", "Established"
    TRUSTED = "trusted", "Trusted"
    EXEMPLARY = "exemplary", "Exemplary"


class Level(models.IntegerChoices):
    L0 = 0, "L0 · name only"
    L1 = 1, "L1 · identified by a source id"
    L2 = 2, "L2 · ORCID or ids agree across sources"
    L3 = 3, "L3 · claimed and verified through ORCID sign-in"
    L4 = 4, "L4 · claimed and reviewed by staff"


def _score_range(name: str) -> models.CheckConstraint:
    return models.CheckConstraint(condition=Q(score__gte=0, score__lte=100), name=name)


class TrustScore(models.Model):
    """The current score of one author record, with every component and its evidence."""

    author = models.OneToOneField(Author, on_delete=models.CASCADE, related_name="trust")
    score = models.PositiveSmallIntegerField()
    tier = models.CharField(max_length=16, choices=Tier.choices)
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    claim_status = models.CharField(
        max_length=40, blank=True, help_text='In short words, as "Unclaimed author".'
    )
    components = models.JSONField(default=list)
    # A digest of everything shown (score, tier, level, claim status, components): a
    # recomputation that finds the same digest only touches computed_at.
    digest = models.CharField(max_length=32, blank=True, editable=False)
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [_score_range("trust_score_range")]
        indexes = [models.Index(fields=["-score"], name="trust_score_idx")]

    def __str__(self) -> str:
        return f"{self.author}: {self.score} ({self.get_tier_display()}, L{self.level})"


class TrustScoreHistory(models.Model):
    """One row each time an author's score, tier or level changed."""

    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="trust_history")
    score = models.PositiveSmallIntegerField()
    tier = models.CharField(max_length=16, choices=Tier.choices)
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    components = models.JSONField(default=list)
    reason = models.CharField(max_length=200, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["author", "-computed_at"]
        verbose_name_plural = "trust score history"
        constraints = [_score_range("trust_history_score_range")]
        indexes = [models.Index(fields=["author", "-computed_at"], name="trust_history_author_idx")]

    def __str__(self) -> str:
        return f"{self.author} {self.score} at {self.computed_at:%Y-%m-%d}"

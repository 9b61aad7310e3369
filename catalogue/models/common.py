"""What every model of the app shares: the sources, timestamps and constraint helpers."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import LessThanOrEqual


def unique_where_present(field: str, model: str) -> models.UniqueConstraint:
    """An external id is unique among the rows that have one."""
    return models.UniqueConstraint(
        fields=[field],
        condition=Q(**{f"{field}__isnull": False}) & ~Q(**{field: ""}),
        name=f"{model}_{field}_unique_when_set",
    )


def bounded_text(model: str, **limits: int) -> list[models.CheckConstraint]:
    """One CHECK per text column: at most its number of characters (see catalogue.text)."""
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

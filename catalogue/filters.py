"""Sorting and filtering of work lists, shared by the researcher page and the API.

The parameters are the page's query string, so a filtered list can be shared as
a link: ``?sort=cited&year_from=2019&year_to=2022&type=preprint&topic=arxiv:cs.LG
&has_code=true&oa=gold&page=2``. A value that does not validate is reported and left
out; the other filters still apply.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import F, Q, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from catalogue.models import Topic, Work, WorkTopic

MIN_YEAR = 1600
MAX_YEAR = 2200


class Sort:
    NEWEST = "newest"
    CITED = "cited"
    TITLE = "title"
    CHOICES = [(NEWEST, "Newest"), (CITED, "Most cited"), (TITLE, "Title")]
    DEFAULT = NEWEST


_NEWEST = [
    F("publication_year").desc(nulls_last=True),
    F("publication_date").desc(nulls_last=True),
    "-id",
]
ORDERINGS = {
    Sort.NEWEST: _NEWEST,
    Sort.CITED: [F("cited_by_count").desc(nulls_last=True), *_NEWEST],
    Sort.TITLE: ["normalized_title", "id"],
}


# ?oa=: any open copy, one OpenAlex open-access status, or none.
OPEN_ACCESS_CHOICES = [
    ("open", "Open access (any)"),
    ("diamond", "Diamond open access"),
    ("gold", "Gold open access"),
    ("hybrid", "Hybrid open access"),
    ("bronze", "Bronze open access"),
    ("green", "Green open access"),
    ("closed", "Not open access"),
]


def open_access_q(value: str) -> Q:
    """Works matching an ``oa`` filter value (see OPEN_ACCESS_CHOICES)."""
    if value == "open":
        return Q(is_open_access=True)
    if value == "closed":
        return Q(is_open_access=False)
    return Q(oa_status=value)


@extend_schema_field({"type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR})
class YearFilter(django_filters.Filter):
    field_class = forms.IntegerField


@extend_schema_field(OpenApiTypes.BOOL)
class CodeFilter(django_filters.BooleanFilter):
    """true, false, or absent for either."""


@extend_schema_field(OpenApiTypes.STR)
class TopicKeyFilter(django_filters.ModelChoiceFilter):
    """A topic given by its key (``arxiv:cs.LG``), readable in a shared link."""


class WorkFilterForm(forms.Form):
    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("year_from"), cleaned.get("year_to")
        if start is not None and end is not None and start > end:
            self.add_error("year_to", f"The end year ({end}) is before the start year ({start}).")
        return cleaned


class WorkFilter(django_filters.FilterSet):
    """Sort (newest, most cited, title) and filter (years, type, topic, code) a work list."""

    sort = django_filters.ChoiceFilter(
        choices=Sort.CHOICES,
        method="_keep",
        empty_label=None,
        label="Sort",
        help_text="newest (default), cited (most cited first) or title (A to Z).",
        error_messages={"invalid_choice": "Sort by newest, cited or title."},
    )
    year_from = YearFilter(
        field_name="publication_year",
        lookup_expr="gte",
        label="From year",
        min_value=MIN_YEAR,
        max_value=MAX_YEAR,
        help_text="Works published in this year or later.",
        error_messages={"invalid": "Enter a year such as 2019."},
    )
    year_to = YearFilter(
        field_name="publication_year",
        lookup_expr="lte",
        label="To year",
        min_value=MIN_YEAR,
        max_value=MAX_YEAR,
        help_text="Works published in this year or earlier.",
        error_messages={"invalid": "Enter a year such as 2024."},
    )
    type = django_filters.ChoiceFilter(
        choices=Work.Type.choices,
        label="Type",
        empty_label="Any type",
        error_messages={"invalid_choice": "Unknown work type; pick one from the list."},
    )
    topic = TopicKeyFilter(
        queryset=Topic.objects.all(),
        to_field_name="key",
        method="_in_topic",
        label="Topic",
        empty_label="Any topic",
        help_text='A topic key, e.g. "arxiv:cs.LG" or "openalex:T11636".',
        error_messages={"invalid_choice": "No topic has this key; pick one from the list."},
    )
    has_code = CodeFilter(
        method="_has_code",
        label="Has code",
        help_text="true: only works with a code link; false: only works without one.",
    )

    oa = django_filters.ChoiceFilter(
        choices=OPEN_ACCESS_CHOICES,
        method="_open_access",
        label="Open access",
        empty_label="Any access",
        help_text="open (any open copy), an OpenAlex status (diamond, gold, hybrid, bronze, "
        "green) or closed.",
        error_messages={"invalid_choice": "Unknown open-access choice; pick one from the list."},
    )

    class Meta:
        model = Work
        fields = ["sort", "year_from", "year_to", "type", "topic", "has_code", "oa"]
        form = WorkFilterForm

    def _keep(self, queryset: QuerySet, name: str, value) -> QuerySet:
        return queryset  # ordering is applied last, in filter_queryset

    def _in_topic(self, queryset: QuerySet, name: str, topic: Topic) -> QuerySet:
        return queryset.filter(id__in=WorkTopic.objects.filter(topic=topic).values("work_id"))

    def _has_code(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        if value is None:
            return queryset
        return queryset.exclude(code_url="") if value else queryset.filter(code_url="")

    def _open_access(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(open_access_q(value)) if value else queryset

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        return queryset.order_by(*ORDERINGS[self.sort_value])

    @property
    def sort_value(self) -> str:
        """The sort in effect: the valid one asked for, else the default."""
        cleaned = getattr(self.form, "cleaned_data", {})
        return cleaned.get("sort") or Sort.DEFAULT

    @property
    def active(self) -> bool:
        """Whether any filter (not the sort) narrows the list."""
        cleaned = getattr(self.form, "cleaned_data", {})
        return any(cleaned.get(name) not in (None, "") for name in FILTER_NAMES)


FILTER_NAMES = ("year_from", "year_to", "type", "topic", "has_code", "oa")
